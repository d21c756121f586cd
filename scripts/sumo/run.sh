#!/usr/bin/env bash
# Runs SUMO on an OSM extract and compares its measured edge speeds with the speeds streetwise
# learns from SUMO's floating-car data. See docs/sumo-validation.md.
#
#   scripts/sumo/run.sh [extract.osm.pbf] [work-dir] [duration-s] [trip-period-s] [fcd-period-s]
#
# Needs the Debian packages sumo, sumo-tools and osmium-tool, and `npx tsx` (repo dev dependency).
set -euo pipefail

PBF="${1:-../shared/data/baltimore.osm.pbf}"
NAME="$(basename "$PBF" .osm.pbf)"
WORK="${2:-/tmp/streetwise-sumo/$NAME}"
DURATION_S="${3:-3600}"
TRIP_PERIOD_S="${4:-1.5}"
FCD_PERIOD_S="${5:-5}"
SUMO_HOME="${SUMO_HOME:-/usr/share/sumo}"
export SUMO_HOME
REPO="$(cd "$(dirname "$0")/../.." && pwd)"

for tool in osmium netconvert sumo python3; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install -y sumo sumo-tools osmium-tool" >&2; exit 1; }
done
mkdir -p "$WORK"
PBF_ABS="$(cd "$(dirname "$PBF")" && pwd)/$(basename "$PBF")"

echo "== 1/5 PBF -> OSM XML (osmium)"
osmium cat --overwrite "$PBF_ABS" -o "$WORK/$NAME.osm"

echo "== 2/5 netconvert (passenger roads, guessed signals, ramps)"
netconvert --osm-files "$WORK/$NAME.osm" -o "$WORK/$NAME.net.xml" \
  --keep-edges.by-vclass passenger --remove-edges.isolated \
  --ramps.guess --junctions.join --tls.guess-signals --tls.discard-simple --tls.join \
  --output.original-names --no-warnings --ignore-errors >"$WORK/netconvert.log" 2>&1

echo "== 3/5 random trips (period ${TRIP_PERIOD_S}s over ${DURATION_S}s)"
python3 "$SUMO_HOME/tools/randomTrips.py" -n "$WORK/$NAME.net.xml" -o "$WORK/trips.xml" -r "$WORK/routes.rou.xml" \
  -b 0 -e "$DURATION_S" -p "$TRIP_PERIOD_S" --min-distance 800 --fringe-factor 5 --seed 42 --validate >"$WORK/randomtrips.log" 2>&1

cat >"$WORK/edgedata.add.xml" <<ADD
<additional>
  <edgeData id="speeds" file="edgedata.xml" period="$DURATION_S" excludeEmpty="true"/>
</additional>
ADD

echo "== 4/5 sumo (FCD every ${FCD_PERIOD_S}s, geographic coordinates)"
sumo -n "$WORK/$NAME.net.xml" -r "$WORK/routes.rou.xml" -a "$WORK/edgedata.add.xml" \
  --begin 0 --end "$((DURATION_S + 1800))" --seed 42 \
  --fcd-output "$WORK/fcd.xml" --fcd-output.geo --device.fcd.period "$FCD_PERIOD_S" \
  --time-to-teleport 300 --no-step-log --no-warnings >"$WORK/sumo.log" 2>&1

echo "== 5/5 ingest FCD, match, learn, compare"
cd "$REPO"
npx tsx scripts/sumo/compare.ts --pbf "$PBF_ABS" --fcd "$WORK/fcd.xml" --edgedata "$WORK/edgedata.xml" --work "$WORK"
