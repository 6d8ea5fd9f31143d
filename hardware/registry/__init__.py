"""RIAJ register adapters: the online SOAP client, the background sync, a scripted fake.

Modelled on the national register's verification service (``verificarRGIAJ``,
``verificarCambiosRGIAJ``); the Madrid endpoint is configuration. The local
replica lives in ``db/registry_replica.py``; the policy that combines them in
``admission/registry/policy.py``.
"""
