"""Dynamic Resource Allocation (DRA): device selectors (:mod:`kschedlab.dra.cel`) and the
structured allocator that picks devices from ResourceSlices for ResourceClaims.

>>> from kschedlab.dra.cel import compile_selector, DeviceView
>>> compile_selector('device.driver == "gpu.example.com"').matches(DeviceView("gpu.example.com"))
True
"""
