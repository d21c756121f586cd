#!/usr/bin/env python3
"""Adds highway=traffic_signals to the main-road junctions of an OSM XML extract that maps almost
no signals (Andorra maps one), so the control-delay harness has signalized junctions to compare.
Both sides then read the same extract: SUMO's network and streetwise's region.

A node gets a signal when it is where at least three legs of car roads meet, at least two of them
on roads of class tertiary or above (trunk, primary, secondary, tertiary), the legs belong to at
least two roads (a road that splits into its two carriageways is no junction: every leg has the
road's ref or name), it lies on no roundabout, on no motorway and on no link road, and no signal
was already added within --spacing metres (nodes taken in descending leg count, then by id). Nodes
keep their other tags. Service roads (driveways, parking aisles, alleys) make no leg: they make no
main-road junction, and SUMO's network leaves them out (netconvert's OSM type map opens
highway=service to delivery vehicles only), so a signal there would be on a plain road to SUMO.

  python3 add-signals.py city.osm city-signals.osm [--spacing 150] [--max 60]
"""
import argparse
import math
import xml.etree.ElementTree as ET

MAIN = {"trunk", "primary", "secondary", "tertiary"}
CAR = MAIN | {"motorway", "unclassified", "residential", "living_street",
              "motorway_link", "trunk_link", "primary_link", "secondary_link", "tertiary_link"}

ap = argparse.ArgumentParser()
ap.add_argument("src")
ap.add_argument("dst")
ap.add_argument("--spacing", type=float, default=150)
ap.add_argument("--max", type=int, default=60)
a = ap.parse_args()

tree = ET.parse(a.src)
root = tree.getroot()
pos = {}
nodes = {}
for n in root.iter("node"):
    pos[n.get("id")] = (float(n.get("lat")), float(n.get("lon")))
    nodes[n.get("id")] = n
legs = {}
main_legs = {}
roads = {}  # node -> the (ref, name) of each car way through it
excluded = set()
for w in root.iter("way"):
    tags = {t.get("k"): t.get("v") for t in w.iter("tag")}
    hw = tags.get("highway", "")
    if hw not in CAR:
        continue
    refs = [nd.get("ref") for nd in w.iter("nd")]
    if tags.get("junction") in ("roundabout", "circular") or hw == "motorway" or hw.endswith("_link"):
        excluded.update(refs)
        continue
    for i, r in enumerate(refs):
        k = (1 if i > 0 else 0) + (1 if i < len(refs) - 1 else 0)
        legs[r] = legs.get(r, 0) + k
        roads.setdefault(r, []).append((tags.get("ref", ""), tags.get("name", ""), w.get("id")))
        if hw in MAIN:
            main_legs[r] = main_legs.get(r, 0) + k


def same_road(x, y):
    """Two ways of one road: the same way, or a shared ref or name."""
    return x[2] == y[2] or (x[0] != "" and x[0] == y[0]) or (x[1] != "" and x[1] == y[1])


def several_roads(r):
    ways = roads.get(r, [])
    return any(not same_road(x, y) for x in ways for y in ways)


cands = [
    r for r, k in legs.items()
    if k >= 3 and main_legs.get(r, 0) >= 2 and several_roads(r) and r not in excluded and r in pos
]
cands.sort(key=lambda r: (-legs[r], int(r)))


def dist(p, q):
    k = math.cos(math.radians((p[0] + q[0]) / 2))
    return math.hypot((p[0] - q[0]) * 111195, (p[1] - q[1]) * 111195 * k)


chosen = [r for r, n in nodes.items() if any(t.get("k") == "highway" and t.get("v") == "traffic_signals" for t in n.iter("tag"))]
added = []
for r in cands:
    if len(added) >= a.max:
        break
    if any(dist(pos[r], pos[c]) < a.spacing for c in chosen):
        continue
    n = nodes[r]
    for t in list(n.iter("tag")):
        if t.get("k") == "highway":
            n.remove(t)
    ET.SubElement(n, "tag", {"k": "highway", "v": "traffic_signals"})
    chosen.append(r)
    added.append(r)
tree.write(a.dst, encoding="utf-8", xml_declaration=True)
print(f"{len(cands)} main-road junctions, {len(added)} signals added ({len(chosen)} in all)")
