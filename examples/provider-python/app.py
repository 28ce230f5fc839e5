"""Two skills held in memory, served to skillhost over skillhost:provider@0.3.0."""
import hashlib
import json

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports.types import (Frontmatter, Need, Observation, ProviderError_NotFound,
                                     ProviderManifest, Resource, SkillDocument, SkillEntry)

SKILLS = {
    "py-greeting": ({"description": "Greets the user warmly", "allowed-tools": "Read"}, "Say hello.\n"),
    "py-farewell": ({"description": "Says goodbye", "when_to_use": "The user is leaving"}, "Bye.\n"),
}


def entry(name):  # Paths without a leading "/" live in this provider's own namespace.
    if name not in SKILLS:
        raise Err(ProviderError_NotFound(name))
    fields = {"name": name, **SKILLS[name][0]}
    raw = "".join(f"{key}: {json.dumps(value)}\n" for key, value in fields.items())
    return SkillEntry(name, Frontmatter(raw, json.dumps(fields)), f"{name}/SKILL.md", name)


def document(name, path="SKILL.md"):
    if path != "SKILL.md":
        raise Err(ProviderError_NotFound(path))
    return f"---\n{entry(name).frontmatter.raw}---\n{SKILLS[name][1]}".encode()


class Provider(exports.Provider):
    def manifest(self): return ProviderManifest("Two skills held in memory", Need.NONE, [], [])
    def init(self, config): pass
    def snapshot(self, request): return Observation(1, None, [entry(n) for n in SKILLS], [], [], True)
    def load(self, name): return SkillDocument(entry(name), SKILLS[name][1])
    def read_resource(self, name, path): return document(name, path)
    def read_resource_range(self, name, path, at, n): return document(name, path)[at:at + n]
    def on_change(self, events): pass
    def observe(self, paths): pass

    def list_resources(self, name):
        data = document(name)
        return [Resource("SKILL.md", len(data), "sha256:" + hashlib.sha256(data).hexdigest())]
