"""The teachers' check of 13-node-pressure-eviction: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

from kschedlab.kubelet.reclaim import (
    DELETE_ALL_UNUSED_CONTAINERS,
    DELETE_UNUSED_IMAGES,
    build_signal_to_node_reclaim_funcs,
)

ec_ex = eviction_config(kubelet_config_from_flags(
    "--system-reserved=memory=1Gi --kube-reserved=memory=512Mi --eviction-hard=memory.available<300Mi"))
allocatable_ex = node_allocatable({"memory": "16Gi"}, ec_ex)["memory"]
split_steps = build_signal_to_node_reclaim_funcs(True, True)["nodefs.available"]
step_names = {(DELETE_UNUSED_IMAGES,): "delete unused images only", (DELETE_ALL_UNUSED_CONTAINERS,): "delete dead containers only",
              (DELETE_ALL_UNUSED_CONTAINERS, DELETE_UNUSED_IMAGES): "delete dead containers, then unused images",
              (): "nothing: it evicts at once"}
letter_2 = "abcd"[ex2.choices.index(step_names[split_steps])]
raised = eviction_config(kubelet_config_from_flags("--eviction-hard=memory.available<1Gi --system-reserved=memory=1.5Gi"))
allocatable_raised = node_allocatable(node10.status.capacity, raised)["memory"]
for ex, value in [(ex1, str(allocatable_ex)), (ex2, letter_2), (ex3, str(allocatable_raised)),
                  (ex4, "a sentence of a few words")]:
    assert ex.verdict(value)[0], ex.question
print("allocatable:", allocatable_ex, "| split nodefs reclaim:", split_steps, "| raised threshold:", allocatable_raised)
