"""A skills server nobody here wrote: FastMCP's SkillsDirectoryProvider
(SEP-2640) over Streamable HTTP on loopback, serving the folder given.

Usage: fastmcp_server.py SKILLS_DIR PORT
"""

import sys

from fastmcp import FastMCP
from fastmcp.skills.provider import SkillsDirectoryProvider

mcp = FastMCP("fastmcp skills")
mcp.add_provider(SkillsDirectoryProvider(sys.argv[1], reload=True))
mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), path="/mcp")
