"""The teachers' check of 08-dynamic-resource-allocation: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

import tempfile

import yaml

# ex1: a 12Gi counter set -> how many of part-a / part-b get a device
with tempfile.TemporaryDirectory() as tmp:
    docs = list(yaml.safe_load_all(PARTITIONABLE[0].read_text()))
    for d in docs:
        for cs in d.get("spec", {}).get("sharedCounters", []):
            cs["counters"]["memory"]["value"] = "12Gi"
    (Path(tmp) / "p.yaml").write_text(yaml.safe_dump_all(docs))
    c12, _ = dra_cluster(Path(tmp) / "p.yaml", PARTITIONABLE[1])
    placed_12 = sum(r.node is not None for r in Scheduler(c12, seed=0).run().history)
# ex2: two small devices
fresh_2, _ = dra_cluster(*PRIORITIZED)
small = 'device.attributes["resource-driver.example.com"].size == "small"'
fits = [n for n in ("node-black", "node-white") if try_claim(fresh_2, n, "resource.example.com", 2, small).devices]
letter_2 = {("node-black",): "a", ("node-white",): "b", (): "c"}[tuple(fits)]
# ex3: team-c's eviction time with the rule at 30 s and team-c tolerating the taint for 45 s
with tempfile.TemporaryDirectory() as tmp:
    docs = list(yaml.safe_load_all((SCENARIOS / "device-taint-eviction-sim.yaml").read_text()))
    for d in docs:
        if d["kind"] == "ResourceClaimTemplate" and d["metadata"]["namespace"] == "team-c":
            d["spec"]["spec"]["devices"]["requests"][0]["exactly"]["tolerations"][0]["tolerationSeconds"] = 45
        if d["kind"] == "Simulation":
            d["spec"]["events"][0]["at"] = 30
    (Path(tmp) / "e.yaml").write_text(yaml.safe_dump_all(docs))
    sim_3, _ = run_scenario(Path(tmp) / "e.yaml")
ev = sim_3.dra.evictions_frame()
evicted_c = float(ev[(ev.action == "evict") & ev.object.str.startswith("team-c/")].time.iloc[0])
# ex4: bound at the poll after 43 s
outcome_4, bound_4 = binding_outcome(ready_at=43, timeout="60s")
assert outcome_4 == "bound"
expected = [(ex1, placed_12), (ex2, letter_2), (ex3, evicted_c), (ex4, bound_4)]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("12Gi counters:", placed_12, "pods | small x2 fits on:", fits,
      "| team-c evicted at", evicted_c, "s | bound at", bound_4, "s")
