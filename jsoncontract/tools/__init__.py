"""Tool definitions: loading every dialect into one model, and the compiled tool set."""

from jsoncontract.tools.loader import load_tool_file, load_tool_files
from jsoncontract.tools.toolset import ToolSet

__all__ = ["ToolSet", "load_tool_file", "load_tool_files"]
