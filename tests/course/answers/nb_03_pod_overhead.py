"""The teachers' check of 03-pod-overhead: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

from kschedlab.viz.overhead import copies_admitted

kata_qemu = overhead_outcome(objects, "default/test-pod", cpu_overhead="400m", memory_overhead="160Mi")
copies = copies_admitted([*objects, *load(QUOTA)], "default/test-pod", cpu_overhead=0)
expected = [(ex1, kata_qemu.requests["cpu"]), (ex2, kata_qemu.cgroup.memory), (ex3, "abc"[copies - 1])]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("CPU the scheduler looks for:", kata_qemu.requests["cpu"], "m")
print("memory.limit_in_bytes:", kata_qemu.cgroup.memory)
print("copies admitted without CPU overhead:", copies,
      "| with kata-fc's 250m:", copies_admitted([*objects, *load(QUOTA)], "default/test-pod"))
