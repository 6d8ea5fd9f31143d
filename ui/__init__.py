"""User interfaces: the Qt desk window and the command line."""
