"""Captures: reading provider responses, MCP frames and downstream bodies as tool calls."""

from jsoncontract.capture.reader import CAPTURE_SUFFIXES, CaptureReader

__all__ = ["CAPTURE_SUFFIXES", "CaptureReader"]
