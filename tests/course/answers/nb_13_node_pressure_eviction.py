"""The teachers' check of 13-node-pressure-eviction: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

ec_ex = eviction_config(kubelet_config_from_flags(
    "--system-reserved=memory=1Gi --kube-reserved=memory=512Mi --eviction-hard=memory.available<300Mi"))
allocatable_ex = node_allocatable({"memory": "16Gi"}, ec_ex)["memory"]
first = ranking_with_usage(pods, stats["pods"], {"web-besteffort": 900 * Mi})["pod"].iloc[0].split("/")[1]
letter = "abcd"[ex2.choices.index(first)]
for ex, value in [(ex1, str(allocatable_ex)), (ex2, letter)]:
    assert ex.verdict(value)[0], ex.question
print("allocatable:", allocatable_ex, "| evicted first:", first)

from kschedlab.kubelet.reclaim import (
    DELETE_ALL_UNUSED_CONTAINERS,
    DELETE_UNUSED_IMAGES,
    build_signal_to_node_reclaim_funcs,
)

batch_badness = next(r["badness"] for r in oom_sim.kubelet.ooms[0]["ranking"] if r["pod"] == "default/batch")
split_steps = build_signal_to_node_reclaim_funcs(True, True)["nodefs.available"]
step_names = {(DELETE_UNUSED_IMAGES,): "delete unused images only", (DELETE_ALL_UNUSED_CONTAINERS,): "delete dead containers only",
              (DELETE_ALL_UNUSED_CONTAINERS, DELETE_UNUSED_IMAGES): "delete dead containers, then unused images",
              (): "nothing: it evicts at once"}
letter_4 = "abcd"[ex4.choices.index(step_names[split_steps])]
for ex, value in [(ex3, batch_badness), (ex4, letter_4)]:
    assert ex.verdict(value)[0], ex.question
print("batch's badness:", batch_badness, "| split nodefs reclaim:", split_steps)
