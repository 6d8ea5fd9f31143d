"""What each screen of the desk may do, one small module per topic (as Anki's
``aqt/operations``): ``bans``, ``cards``, ``data_protection``, ``official``,
``settings``, ``staff``, ``vouchers``.

Each module names the ports its screens use - narrow Protocols over the visitor file,
the devices and the desk's services - and holds them in one frozen ``...Ops`` value
with the operations over them (a reading and its audit entry, a decision, a print).
A dialog's constructor takes that value, never the whole context: what it receives is
what it may touch. ``of(ctx)`` in each module picks the ports out of the context the
composition root built (``ui.context.AppContext``). No Qt here: the operations run on
the store worker (``ui.desk.jobs.JobRunner``) and the dialogs show their results.
"""
