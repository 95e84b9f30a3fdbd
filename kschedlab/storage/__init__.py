"""Storage below the scheduler: the PersistentVolume helpers shared by the PV controller and
the VolumeBinding plugin (``pv_helpers``, upstream ``component-helpers/storage/volume``) and the
PV controller with the external provisioner it works with (``pv_controller``).
The VolumeBinding plugin in ``plugins/`` drives them."""
