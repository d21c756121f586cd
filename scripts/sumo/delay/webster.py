"""Webster signal plans for the peak hour: runs SUMO's tools/tlsCycleAdaptation.py unchanged, except
that a signal whose counted critical flows are all zero (only permissive 'g' links carried traffic)
keeps netconvert's default plan instead of failing with a division by zero. Same arguments as the
tool."""
import os
import sys

sys.path.insert(0, os.path.join(os.environ.get("SUMO_HOME", "/usr/share/sumo"), "tools"))
import tlsCycleAdaptation as tca  # noqa: E402

_optimize = tca.optimizeGreenTime


def _optimize_or_keep(tl, group_flows, phase_lanes, current_length, options):
    try:
        return _optimize(tl, group_flows, phase_lanes, current_length, options)
    except ZeroDivisionError:
        print("keeping the default plan of %s (no critical flow)" % tl.getID())
        return group_flows


tca.optimizeGreenTime = _optimize_or_keep
tca.options = tca.get_options()
tca.main(tca.options)
