"""Tests for entry cards."""
