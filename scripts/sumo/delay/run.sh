#!/usr/bin/env bash
# The control-delay validation of one city, end to end (docs/sumo-validation.md):
#   1. scenario.sh  — SUMO network, morning-peak demand, Webster signal plans, simulation
#   2. truth.ts     — per-vehicle truth from SUMO's outputs only
#   3. probes.ts    — 10 % of the vehicles as probes pinging every 3 s, through streetwise's pipeline
#                     (clean, then with 4 m position noise), signal timing known
#   4. compare.ts   — the figures, written to <work-dir>/figures-clean.json and figures-noisy.json
#   5. speeds.ts    — learned speeds against the same probe vehicles' 1 s record (speeds-<variant>.json)
#
#   [HOURS=1] scripts/sumo/delay/run.sh baltimore|monaco|andorra [work-dir]
#
# An existing simulation in the work directory is reused (delete fcd.xml to simulate again).
# HOURS=1 simulates the peak hour only (scenario.sh); Andorra runs that way by default.
set -euo pipefail

CITY="${1:?usage: run.sh baltimore|monaco|andorra [work-dir]}"
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
WORK="${2:-/tmp/streetwise-sumo-delay/$CITY}"
case "$CITY" in
  baltimore) COUNTRY=us; PEAK_VPH="${PEAK_VPH:-4800}" ;;
  # seed 43: with 42, SUMO 1.15 aborts on an internal assertion (MSLane::resetPartialOccupation)
  monaco) COUNTRY=mc; PEAK_VPH="${PEAK_VPH:-4000}"; export SEED="${SEED:-43}" ;;
  # a valley town on two main roads with few signals, a different pattern from Baltimore's grid
  # and Monaco's terraces; one simulated hour keeps the run small
  andorra) COUNTRY=ad; PEAK_VPH="${PEAK_VPH:-3000}"; export HOURS="${HOURS:-1}" ;;
  *) echo "city must be baltimore, monaco or andorra" >&2; exit 1 ;;
esac
PBF="$REPO/../shared/data/$CITY.osm.pbf"
[ -f "$PBF" ] || { echo "missing $PBF" >&2; exit 1; }
PBF="$(cd "$(dirname "$PBF")" && pwd)/$(basename "$PBF")"
NODE="nice -n 10 node --max-old-space-size=8000 --import tsx"
# OSM maps a single signal in Andorra: signals are added at its main-road junctions
# (add-signals.py), into a copy of the extract that both SUMO and streetwise read
if [ "$CITY" = andorra ]; then
  mkdir -p "$WORK"
  if [ ! -f "$WORK/extract.osm.pbf" ]; then
    osmium cat --overwrite "$PBF" -o "$WORK/extract-src.osm"
    python3 "$HERE/add-signals.py" "$WORK/extract-src.osm" "$WORK/extract-signals.osm"
    osmium cat --overwrite "$WORK/extract-signals.osm" -o "$WORK/extract.osm.pbf"
  fi
  PBF="$WORK/extract.osm.pbf"
fi

if [ ! -f "$WORK/fcd.xml" ]; then "$HERE/scenario.sh" "$PBF" "$WORK" "$COUNTRY" "$PEAK_VPH"; fi
cd "$REPO"
$NODE scripts/sumo/delay/catalogue.ts --dir "$WORK" --pbf "$PBF" --out "$WORK/catalogue.json" >"$WORK/catalogue.log"; head -n 1 "$WORK/catalogue.log"
$NODE scripts/sumo/delay/truth.ts --dir "$WORK"
for variant in clean noisy; do
  noise=0; [ "$variant" = noisy ] && noise=4
  rm -f "$WORK/trajectories-$variant.json" # written by probes.ts, read by speeds.ts
  $NODE scripts/sumo/delay/probes.ts --dir "$WORK" --pbf "$PBF" --noise "$noise" --timing --out "$WORK/facts-$variant.json" \
    --trajectories "$WORK/trajectories-$variant.json"
  $NODE scripts/sumo/delay/speeds.ts --dir "$WORK" --pbf "$PBF" --trajectories "$WORK/trajectories-$variant.json" \
    --out "$WORK/speeds-$variant.json" >/dev/null
  $NODE scripts/sumo/delay/compare.ts --dir "$WORK" --facts "$WORK/facts-$variant.json" --label "$CITY $variant" --out "$WORK/figures-$variant.json" --details "$WORK/crossings-$variant.json" >/dev/null
done
$NODE scripts/sumo/delay/summary.ts "$WORK/figures-clean.json" "$WORK/figures-noisy.json"
