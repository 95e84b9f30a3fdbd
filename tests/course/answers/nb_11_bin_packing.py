"""The teachers' check of 11-bin-packing: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py), and the
numbers the notebook's text states."""

asked = {"intel.com/foo": 10, "memory": 1, "cpu": 1}
heavy = rtcr_worksheet(POD, NODES, asked, [(0, 0), (100, 10)], score_scale=CURRENT_SCALE)
spreading = rtcr_worksheet(POD, NODES, asked, [(0, 10), (100, 0)], score_scale=CURRENT_SCALE)
expected = [(ex1, int(heavy.nodes.loc["node 1", "library"])), (ex2, int(spreading.nodes.loc["node 2", "library"])),
            (ex3, ShapeEditor([(0, 10), (100, 0)]).score_at(30))]
assert heavy.nodes["by hand"].tolist() == heavy.nodes["library"].tolist()
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
# the text's numbers: the docs' 5 and 7 on the legacy scale, the plugin's 60 and 69 today
assert legacy.nodes["library"].to_dict() == {"node 1": 5, "node 2": 7}
seed_result = Scheduler(Cluster(load_manifests(text=SEED_YAML)), seed_config, seed=0).schedule_one("default/new")
seed_raw = {node: s["NodeResourcesFit"]["raw"] for node, s in seed_result.trace.scores().items()}
assert seed_raw == {"node-1": 60, "node-2": 69} == plugin_sheet.nodes["plugin"].to_dict()
assert seed_result.node == "node-2"
print("expected answers:", [value for _, value in expected])
