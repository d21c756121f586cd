#!/usr/bin/env bash
# Builds and runs the SUMO scenario of the control-delay validation (docs/sumo-validation.md):
# the city's network from its OSM extract, a morning peak of random trips (vehicles re-route on
# current travel times), fixed-time signals timed by Webster's method for the peak hour (SUMO's
# tlsCycleAdaptation.py, cycles of MIN_CYCLE_S–120 s), and the outputs the truth is derived from:
# 1 s FCD with lane and position, tripinfo, driven routes, every signal switch, junction positions.
#
#   [SEED=42] [MIN_CYCLE_S=90] [HOURS=3|1] [NET_ONLY=1] \
#     scripts/sumo/delay/scenario.sh <extract.osm.pbf> <work-dir> <country: us|mc|ad> [peak-veh-per-hour]
#
# HOURS=1 simulates only the peak hour (departures 07:30–08:30 at the peak rate, run until 08:45).
# NET_ONLY=1 stops after the network and its junction positions (the junction catalogue check).
# Needs the Debian packages sumo, sumo-tools, osmium-tool. Runs SUMO under `nice`.
set -euo pipefail

PBF="$1"; WORK="$2"; COUNTRY="$3"; PEAK_VPH="${4:-2400}"
SUMO_HOME="${SUMO_HOME:-/usr/share/sumo}"; export SUMO_HOME
# Simulated clock: 06:30–09:30 local time of departures (seconds of the day), run until 10:00.
BEGIN_S=23400; END_S=34200; RUN_END_S=36000; PEAK_BEGIN_S=27000; SHARES="0.5 0.75 1 1 0.75 0.5"
if [ "${HOURS:-3}" = 1 ]; then BEGIN_S=27000; END_S=30600; RUN_END_S=31500; SHARES="1 1"; fi
SEED="${SEED:-42}"
MIN_CYCLE_S="${MIN_CYCLE_S:-90}"
HERE="$(cd "$(dirname "$0")" && pwd)"

for tool in osmium netconvert sumo python3; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install -y sumo sumo-tools osmium-tool" >&2; exit 1; }
done
mkdir -p "$WORK"
PBF_ABS="$(cd "$(dirname "$PBF")" && pwd)/$(basename "$PBF")"
cd "$WORK"

echo "== OSM XML"
# Ways closed to motor vehicles (motor_vehicle=no, motorcar=no; a pedestrianised avenue tagged as a
# secondary road) are left out: netconvert 1.15 keeps them open to passenger cars, streetwise's
# importer does not, and vehicles SUMO routes along them have no crossing on our map.
osmium tags-filter --overwrite -i "$PBF_ABS" w/motor_vehicle=no w/motorcar=no -o city.osm

# Speed limits of ways without a maxspeed tag: the legal urban defaults of the country (netconvert's
# stock type map assumes rural limits, e.g. 100 km/h on an untagged primary road).
mph() { python3 -c "print(round($1 * 0.44704, 2))"; }
case "$COUNTRY" in
  us) declare -A V=([motorway]=$(mph 65) [trunk]=$(mph 55) [primary]=$(mph 35) [secondary]=$(mph 30) [tertiary]=$(mph 30)
        [unclassified]=$(mph 25) [residential]=$(mph 25) [living_street]=$(mph 15) [service]=$(mph 15)
        [motorway_link]=$(mph 35) [trunk_link]=$(mph 30) [primary_link]=$(mph 25) [secondary_link]=$(mph 25) [tertiary_link]=$(mph 25)) ;;
  mc) kmh() { python3 -c "print(round($1 / 3.6, 2))"; }
      declare -A V=([motorway]=$(kmh 50) [trunk]=$(kmh 50) [primary]=$(kmh 50) [secondary]=$(kmh 50) [tertiary]=$(kmh 50)
        [unclassified]=$(kmh 30) [residential]=$(kmh 30) [living_street]=$(kmh 20) [service]=$(kmh 20)
        [motorway_link]=$(kmh 50) [trunk_link]=$(kmh 50) [primary_link]=$(kmh 50) [secondary_link]=$(kmh 50) [tertiary_link]=$(kmh 40)) ;;
  # Andorra: 50 km/h in the towns, 90 km/h on the CG main roads outside them (streetwise's defaults)
  ad) kmh() { python3 -c "print(round($1 / 3.6, 2))"; }
      declare -A V=([motorway]=$(kmh 90) [trunk]=$(kmh 90) [primary]=$(kmh 90) [secondary]=$(kmh 60) [tertiary]=$(kmh 50)
        [unclassified]=$(kmh 50) [residential]=$(kmh 50) [living_street]=$(kmh 20) [service]=$(kmh 20)
        [motorway_link]=$(kmh 80) [trunk_link]=$(kmh 60) [primary_link]=$(kmh 50) [secondary_link]=$(kmh 50) [tertiary_link]=$(kmh 40)) ;;
  *) echo "country must be us, mc or ad" >&2; exit 1 ;;
esac
{
  echo '<types>'
  for k in "${!V[@]}"; do echo "  <type id=\"highway.$k\" speed=\"${V[$k]}\"/>"; done
  echo '</types>'
} > urban-speeds.typ.xml

echo "== netconvert"
netconvert --osm-files city.osm -o city.net.xml \
  --type-files "$SUMO_HOME/data/typemap/osmNetconvert.typ.xml,urban-speeds.typ.xml" \
  --keep-edges.by-vclass passenger --remove-edges.isolated --ramps.guess \
  --junctions.join --tls.guess-signals --tls.discard-simple --tls.join --tls.join-dist 30 --tls.default-type static \
  --output.original-names --no-warnings --ignore-errors >netconvert.log 2>&1

# Junction positions in longitude/latitude (plain network output), to pair SUMO's signals with ours.
netconvert -s city.net.xml --plain-output-prefix plain --proj.plain-geo >/dev/null 2>&1
[ "${NET_ONLY:-0}" = 1 ] && exit 0

echo "== demand: morning peak ${PEAK_VPH} veh/h"
# Six 30-minute slices from 06:30: ramp up to the peak hour (07:30–08:30) and down again
# (HOURS=1: the two slices of the peak hour).
RATES=$(python3 -c "p=$PEAK_VPH; print(' '.join(str(round(p*float(f))) for f in '$SHARES'.split()))")
python3 "$SUMO_HOME/tools/randomTrips.py" -n city.net.xml -o trips.xml -r routes.rou.xml \
  -b "$BEGIN_S" -e "$END_S" --insertion-rate $RATES --min-distance 600 --fringe-factor 5 \
  --seed "$SEED" --validate --remove-loops >randomtrips.log 2>&1

echo "== Webster timing for the peak hour"
python3 "$HERE/webster.py" -n city.net.xml -r routes.rou.xml -b "$PEAK_BEGIN_S" \
  -o webster.add.xml -y 3 -a 1 --min-cycle "$MIN_CYCLE_S" --max-cycle 120 >webster.log 2>&1

# Every signal switch of every signal program (SUMO's own record of the signal states).
python3 - <<'PY' > tls-states.add.xml
import xml.etree.ElementTree as ET
ids = sorted({t.get('id') for t in ET.parse('city.net.xml').getroot().iter('tlLogic')})
print('<additional>')
for i in ids:
    print('  <timedEvent type="SaveTLSSwitchStates" source="%s" dest="tls-states.xml"/>' % i)
print('</additional>')
PY

echo "== sumo (${BEGIN_S}–${RUN_END_S} s)"
nice -n 10 sumo -n city.net.xml -r routes.rou.xml -a webster.add.xml,tls-states.add.xml \
  --begin "$BEGIN_S" --end "$RUN_END_S" --seed "$SEED" \
  --fcd-output fcd.xml --fcd-output.geo --device.fcd.period 1 \
  --fcd-output.attributes x,y,angle,speed,lane,pos \
  --tripinfo-output tripinfo.xml --vehroute-output vehroutes.xml --vehroute-output.exit-times \
  --device.rerouting.probability 1 --device.rerouting.period 300 --device.rerouting.adaptation-steps 18 \
  --time-to-teleport 300 --no-step-log --duration-log.statistics >sumo.log 2>&1
tail -n 30 sumo.log
