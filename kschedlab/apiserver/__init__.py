"""What the API server does with an object on create and update, before anything schedules it.

Upstream keeps this in ``pkg/apis/*/validation`` (validation with field paths),
``pkg/registry`` (defaulting and the strategies of create and update) and
``plugin/pkg/admission`` (admission plugins). The object models are in :mod:`kschedlab.api`;
what controllers make from the objects is in :mod:`kschedlab.controllers`.
"""
