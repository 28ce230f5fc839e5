//! What the server answers from: one consistent view of the catalog — the
//! served skill entries, every file URI they name, the directories those
//! files make, the resources, prompts and the `skill` tool — replaced as a
//! whole when the catalog or a file changes.
//!
//! Lookups are by exact URI in tables built from the providers' own
//! listings, so a client's URI is never joined to a path: anything not in a
//! table is simply not served.

use crate::content::MARKDOWN;
use crate::entry::{Entry, FileEntry, LeftOut};
use crate::tools;
use crate::uri::{SKILL_MD, basename};
use bytes::Bytes;
use rmcp::model::{DIRECTORY_MIME_TYPE, Prompt, PromptArgument, Resource, Tool};
use skillhost::session::activation::is_active;
use skillhost::session::rank::ranked;
use skillhost::session::render::{RenderOptions, Scores};
use skillhost::{Catalog, Skill};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// A view of the catalog.
///
/// Only what a change must be judged by is made with the view: the entries,
/// prompts and tools. The lookup tables and the resource tree are made on
/// first use (most views of a busy tree are replaced before anyone lists
/// their resources), so a change reaches sessions without waiting for them.
#[derive(Debug, Default)]
pub struct View {
    /// The catalog it was made from.
    pub catalog: Arc<Catalog>,
    /// The served skills, by `SKILL.md` URI.
    pub entries: Vec<Arc<Entry>>,
    /// Entries and files by URI, made on first use.
    lookup: OnceLock<Lookup>,
    /// `resources/list` and the directory tree, made on first use.
    tree: OnceLock<Tree>,
    /// `prompts/list`: one per user-invocable skill, in rank order.
    pub prompts: Vec<Prompt>,
    /// Where each prompt is in `prompts`, by name (a cursor names the last
    /// prompt of its page).
    prompt_index: HashMap<String, usize>,
    /// The tools: `skill`, its description carrying the top of the
    /// listing, and `search_skills`.
    pub tools: Vec<Tool>,
    /// The usage scores the view was ranked by.
    pub scores: Arc<Scores>,
    /// The caps the listing and search results are held to.
    pub render: RenderOptions,
    /// Skills of the catalog that are not served, by catalog name.
    pub left_out: BTreeMap<String, LeftOut>,
    /// `skills/list` results as sent over HTTP, by the index of their
    /// first entry, on 2025-11-25 and on 2026-07-28, serialized on first
    /// use: a view never changes, so neither do they (`crate::listing`
    /// serves them).
    pages: Vec<[OnceLock<Option<Bytes>>; 2]>,
    /// Which start indexes are page boundaries: the first, and where a
    /// page cached from a boundary ends. Only those pages are cached, so a
    /// client forging cursors for every other start (each page a copy of
    /// up to a MiB) costs the server a page made and dropped, never a page
    /// kept.
    boundaries: Vec<AtomicBool>,
}

/// The entries and their files by URI.
#[derive(Debug, Default)]
struct Lookup {
    by_uri: HashMap<String, usize>,
    files: HashMap<String, (usize, usize)>,
}

/// Every file of every served skill as `resources/list` lists it, and the
/// folders they make.
#[derive(Debug, Default)]
struct Tree {
    resources: Vec<Resource>,
    dirs: HashMap<String, Vec<Resource>>,
}

impl View {
    /// Assembles a view from the catalog and the entries made for it (in
    /// any order; `left_out` names those that could not be made). Local
    /// skills claim their URIs first: a remote skill whose URIs collide
    /// with one already claimed is left out too.
    pub fn assemble(
        catalog: Arc<Catalog>,
        mut entries: Vec<Arc<Entry>>,
        mut left_out: BTreeMap<String, LeftOut>,
        render_options: RenderOptions,
        scores: Arc<Scores>,
    ) -> View {
        entries.sort_by(|a, b| (a.name.contains(':'), &a.uri).cmp(&(b.name.contains(':'), &b.uri)));
        // Claims borrow the URIs: a view of 1,000 skills would otherwise
        // copy every one of them once more on every change.
        let mut claimed: HashSet<&str> =
            HashSet::with_capacity(entries.iter().map(|e| e.files.len() + 1).sum());
        let mut keep = vec![true; entries.len()];
        for (i, entry) in entries.iter().enumerate() {
            let uris = || {
                std::iter::once(entry.root.as_str())
                    .chain(entry.files.iter().map(|f| f.uri.as_str()))
            };
            if let Some(taken) = uris().find(|u| claimed.contains(u)) {
                left_out.insert(
                    entry.name.clone(),
                    LeftOut {
                        skill: entry.skill.clone(),
                        reason: format!("its URI {taken} is already served for another skill"),
                        watch: entry.watch.clone(),
                        generation: entry.generation,
                        again: true,
                    },
                );
                keep[i] = false;
                continue;
            }
            claimed.extend(uris());
        }
        drop(claimed);
        let mut kept: Vec<Arc<Entry>> = entries
            .into_iter()
            .zip(keep)
            .filter_map(|(entry, keep)| keep.then_some(entry))
            .collect();
        kept.sort_by(|a, b| a.uri.cmp(&b.uri));
        let mut view = View {
            catalog,
            left_out,
            entries: kept,
            ..View::default()
        };
        view.pages = (0..=view.entries.len())
            .map(|_| Default::default())
            .collect();
        view.boundaries = (0..=view.entries.len())
            .map(|i| AtomicBool::new(i == 0))
            .collect();
        view.prompts = prompts(&view.catalog, &scores);
        view.prompt_index = view
            .prompts
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.clone(), i))
            .collect();
        view.tools = vec![
            tools::skill_tool(&view.catalog, render_options, &scores),
            tools::search_tool(),
        ];
        view.scores = scores;
        view.render = render_options;
        view
    }

    /// The served skill whose `SKILL.md` is at `uri`.
    pub fn entry(&self, uri: &str) -> Option<&Arc<Entry>> {
        self.lookup().by_uri.get(uri).map(|&i| &self.entries[i])
    }

    fn lookup(&self) -> &Lookup {
        self.lookup.get_or_init(|| {
            let mut lookup = Lookup {
                by_uri: HashMap::with_capacity(self.entries.len()),
                files: HashMap::with_capacity(self.entries.iter().map(|e| e.files.len()).sum()),
            };
            for (i, entry) in self.entries.iter().enumerate() {
                lookup.by_uri.insert(entry.uri.clone(), i);
                for (j, file) in entry.files.iter().enumerate() {
                    lookup.files.insert(file.uri.clone(), (i, j));
                }
            }
            lookup
        })
    }

    fn tree(&self) -> &Tree {
        self.tree.get_or_init(|| {
            let mut resources = Vec::new();
            let mut dirs: BTreeMap<String, BTreeMap<String, Resource>> = BTreeMap::new();
            for entry in &self.entries {
                dirs.entry(entry.root.clone()).or_default();
                for file in &entry.files {
                    resources.push(listed(entry, file));
                    add_to_dirs(&mut dirs, entry, file);
                }
            }
            resources.sort_by(|a, b| a.uri.cmp(&b.uri));
            Tree {
                resources,
                dirs: dirs
                    .into_iter()
                    .map(|(dir, children)| (dir, children.into_values().collect()))
                    .collect(),
            }
        })
    }

    /// `resources/list`: every file of every served skill, by URI.
    pub fn resources(&self) -> &[Resource] {
        &self.tree().resources
    }

    /// Whether `resources/list` of this view and of `other` is the same,
    /// judged from their entries without making either list.
    pub fn same_resources(&self, other: &View) -> bool {
        self.entries.len() == other.entries.len()
            && self
                .entries
                .iter()
                .zip(&other.entries)
                .all(|(a, b)| Arc::ptr_eq(a, b) || listed_alike(a, b))
    }

    /// The `skills/list` page starting at entry `start` (as 2026-07-28
    /// gets it when `modern`), made by `make` (its bytes and how many
    /// entries it holds when a page follows it; `None`: answer it
    /// otherwise) and kept when `start` is a page boundary, made again each
    /// time when it is not.
    pub(crate) fn cached_page(
        &self,
        start: usize,
        modern: bool,
        make: impl FnOnce() -> Option<(Bytes, Option<usize>)>,
    ) -> Option<Bytes> {
        let boundary = self.boundaries.get(start)?.load(Ordering::Acquire);
        if !boundary {
            return make().map(|(bytes, _)| bytes);
        }
        self.pages.get(start)?[usize::from(modern)]
            .get_or_init(|| {
                let (bytes, count) = make()?;
                if let Some(next) = count.and_then(|count| self.boundaries.get(start + count)) {
                    next.store(true, Ordering::Release);
                }
                Some(bytes)
            })
            .clone()
    }

    /// How many `skills/list` pages this view keeps serialized.
    pub fn cached_pages(&self) -> usize {
        self.pages
            .iter()
            .flatten()
            .filter(|page| page.get().is_some_and(Option::is_some))
            .count()
    }

    /// Where the prompt after the one named `name` is, if it is listed.
    pub fn prompt_after(&self, name: &str) -> Option<usize> {
        self.prompt_index.get(name).map(|i| i + 1)
    }

    /// The tool named `name`.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The served skill `name` (its catalog name).
    pub fn entry_named(&self, name: &str) -> Option<&Arc<Entry>> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The file at `uri`, with its skill.
    pub fn file(&self, uri: &str) -> Option<(&Arc<Entry>, &FileEntry)> {
        let &(i, j) = self.lookup().files.get(uri)?;
        let entry = &self.entries[i];
        Some((entry, &entry.files[j]))
    }

    /// The served skill whose root `uri` lies under, if any.
    pub fn entry_under(&self, uri: &str) -> Option<&Arc<Entry>> {
        self.entries
            .iter()
            .filter(|e| {
                uri.strip_prefix(e.root.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
            })
            .max_by_key(|e| e.root.len())
    }

    /// The children of the directory resource at `uri`.
    pub fn directory(&self, uri: &str) -> Option<&[Resource]> {
        self.tree().dirs.get(uri).map(Vec::as_slice)
    }

    /// The served skill whose `SKILL.md` is at `uri`, found in the
    /// entries' own order (by URI) without the lookup table.
    pub fn entry_by_uri_sorted(&self, uri: &str) -> Option<&Arc<Entry>> {
        self.entries
            .binary_search_by(|e| e.uri.as_str().cmp(uri))
            .ok()
            .map(|i| &self.entries[i])
    }
}

/// The `resources/list` entry of a file. It carries no size, so that an
/// edit changes no listing (subscribers are told through
/// `resources/updated`).
fn listed(entry: &Entry, file: &FileEntry) -> Resource {
    if file.rel == SKILL_MD {
        let mut resource = Resource::new(file.uri.clone(), entry.wire.frontmatter.name.clone())
            .with_mime_type(MARKDOWN);
        resource.description = Some(entry.wire.frontmatter.description.clone());
        return resource;
    }
    let resource = Resource::new(file.uri.clone(), file.rel.clone());
    match file.mime {
        Some(mime) => resource.with_mime_type(mime),
        None => resource,
    }
}

/// Whether two entries give the same `resources/list` entries: the same
/// files (URI, path, type) and the same name and description, which the
/// document's entry carries.
fn listed_alike(a: &Entry, b: &Entry) -> bool {
    a.wire.frontmatter.name == b.wire.frontmatter.name
        && a.wire.frontmatter.description == b.wire.frontmatter.description
        && a.files.len() == b.files.len()
        && a.files
            .iter()
            .zip(&b.files)
            .all(|(f, g)| f.uri == g.uri && f.rel == g.rel && f.mime == g.mime)
}

/// Adds a file and the folders above it to the directory tree of its skill.
fn add_to_dirs(
    dirs: &mut BTreeMap<String, BTreeMap<String, Resource>>,
    entry: &Entry,
    file: &FileEntry,
) {
    let mut parent = entry.root.clone();
    let segments: Vec<&str> = file.rel.split('/').collect();
    let folders = &segments[..segments.len() - 1];
    let mut rel = String::new();
    for folder in folders {
        if !rel.is_empty() {
            rel.push('/');
        }
        rel.push_str(folder);
        let dir = crate::uri::file_uri(&entry.root, &rel);
        dirs.entry(parent.clone()).or_default().insert(
            dir.clone(),
            Resource::new(dir.clone(), (*folder).to_string()).with_mime_type(DIRECTORY_MIME_TYPE),
        );
        dirs.entry(dir.clone()).or_default();
        parent = dir;
    }
    let mut child =
        Resource::new(file.uri.clone(), basename(&file.rel).to_string()).with_size(file.size);
    if let Some(mime) = file.mime {
        child = child.with_mime_type(mime);
    }
    dirs.entry(parent)
        .or_default()
        .insert(file.uri.clone(), child);
}

/// One prompt per skill a user may invoke (conditional skills are not
/// active for anyone here), in rank order.
fn prompts(catalog: &Catalog, scores: &Scores) -> Vec<Prompt> {
    let none = BTreeSet::new();
    let invocable: Vec<&Skill> = catalog
        .skills
        .iter()
        .map(|s| s.as_ref())
        .filter(|s| s.user_invocable() && is_active(s, &none))
        .collect();
    ranked(&invocable, scores)
        .into_iter()
        .map(|s| {
            let hint = s
                .frontmatter
                .argument_hint
                .clone()
                .unwrap_or_else(|| "Arguments for the skill, separated by spaces".to_string());
            let argument = PromptArgument::new("arguments")
                .with_description(hint)
                .with_required(false);
            let mut prompt = Prompt::new(s.name(), s.description(), Some(vec![argument]));
            // A name served under its folder keeps its text as the title
            // a client shows.
            prompt.title = s.frontmatter.display_name.clone();
            prompt
        })
        .collect()
}
