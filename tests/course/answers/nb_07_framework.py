"""The teachers' check of 07-framework: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

import numpy as np

from kschedlab.framework.profile import resolve_profile
from kschedlab.viz.profiles import schedule_with_profile, score_profile

scores = np.array([0, 1, 3, 4, 2])
BlinkingLightScorer().normalize_score(None, None, scores)
defaults = {name: int(w) for name, w in resolve_profile({}).weights.items()}
smallest = next(w for w in range(1, 50) if schedule_with_profile(
    lights_cluster, "default/disco", score_profile({**defaults, "RawBlinkingLightScorer": w}),
    registry={"RawBlinkingLightScorer": RawBlinkingLightScorer}).node == "node-4")
packed = compare_profiles(lambda: disco_cluster(1), profiles,
                          registry={"BlinkingLightScorer": BlinkingLightScorer}).loc["default/disco"]
# exercise 3 (predict, then change the YAML) is recomputed from its manifest by tests/course/test_predict.py
expected = [(ex1, int(scores[4])), (ex2, smallest)]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("normalized score with 2 lights:", scores[4], "| smallest raw weight:", smallest,
      "| bin-packing-scheduler:", packed["bin-packing-scheduler"])
