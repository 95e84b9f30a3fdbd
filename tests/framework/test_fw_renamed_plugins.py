"""The placement plugin is registered as upstream registers it, TopologyPlacementGenerator; a
KubeSchedulerConfiguration still naming it TopologyPlacement works, with a DeprecationWarning."""

import pytest

from kschedlab.features import FeatureGates
from kschedlab.framework.profile import default_multipoint, resolve_profile

GATES = FeatureGates({"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True})


def test_the_default_profile_uses_upstreams_name():
    names = [n for n, _ in default_multipoint(GATES)]
    assert "TopologyPlacementGenerator" in names and "TopologyPlacement" not in names
    assert resolve_profile({}, gates=GATES).points["placementGenerate"] == ["TopologyPlacementGenerator"]


def test_the_old_name_is_accepted_with_a_deprecation_warning():
    profile = {"plugins": {"multiPoint": {"disabled": [{"name": "TopologyPlacement"}]},
                           "placementGenerate": {"enabled": [{"name": "TopologyPlacement"}]}},
               "pluginConfig": [{"name": "TopologyPlacement", "args": {}}]}
    with pytest.warns(DeprecationWarning, match='"TopologyPlacement" is now named "TopologyPlacementGenerator"') as rec:
        resolved = resolve_profile(profile, gates=GATES)
    assert len(rec) == 1
    assert resolved.points["placementGenerate"] == ["TopologyPlacementGenerator"]
    assert "TopologyPlacementGenerator" in resolved.plugin_config
    assert profile["plugins"]["placementGenerate"]["enabled"] == [{"name": "TopologyPlacement"}]  # left as given


def test_the_current_name_gives_no_warning(recwarn):
    resolve_profile({"plugins": {"placementGenerate": {"enabled": [{"name": "TopologyPlacementGenerator"}]}}},
                    gates=GATES)
    assert not [w for w in recwarn if issubclass(w.category, DeprecationWarning)]
