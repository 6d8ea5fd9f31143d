"""Tests for the RIAJ register: snapshots, replica, policy, online client, sync, CLI."""
