"""Command-line handlers: plain functions returning (exit code, JSON payload)."""
