//! Tool sequences an agent repeats across sessions.
//!
//! Every window of 2 to 8 consecutive calls is counted once per session
//! it appears in; one seen in at least 3 distinct sessions is a candidate.
//! Counting goes level by level: a window is counted only when both its
//! shorter windows (without the first call, without the last) were
//! candidates, since it cannot appear in more sessions than they do.
//!
//! Near-duplicates are then removed. *Superset containment*: a candidate
//! inside a longer candidate that appears in just as many sessions never
//! occurs without it, so only the longer one is kept. *Jaccard
//! similarity* of the two sets of tools: candidates are taken by frequency
//! (then length, then name), and one at least [`Options::near_duplicate`]
//! similar to a pattern already kept is dropped. Each kept pattern's
//! `confidence = ln(frequency) / ln(3) × (1 − highest Jaccard similarity
//! with another kept pattern)`, clamped to [0, 1].

use std::collections::{BTreeSet, HashMap, HashSet};

/// One session's tool calls, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// The session's id; sessions with the same id count once.
    pub id: String,
    /// The tools it called, in order.
    pub tools: Vec<String>,
}

/// What counts as a pattern.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Shortest window (default 2).
    pub min_len: usize,
    /// Longest window (default and most [`MAX_WINDOW`], 8).
    pub max_len: usize,
    /// Distinct sessions a candidate must appear in (default 3).
    pub min_sessions: usize,
    /// Jaccard similarity from which two patterns are near-duplicates
    /// (default 0.6: a sequence and the same with one tool more, from three
    /// tools up).
    pub near_duplicate: f64,
    /// Most patterns returned (default 50), the most frequent first.
    pub max_patterns: usize,
    /// Most distinct windows of one length counted (default and most
    /// [`MAX_COUNTED_WINDOWS`]).
    pub max_windows: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            min_len: 2,
            max_len: 8,
            min_sessions: 3,
            near_duplicate: 0.6,
            max_patterns: 50,
            max_windows: MAX_COUNTED_WINDOWS,
        }
    }
}

/// A repeated tool sequence.
#[derive(Debug, Clone, PartialEq)]
pub struct Pattern {
    /// The tools, in order.
    pub tools: Vec<String>,
    /// The sessions it appears in, sorted.
    pub sessions: Vec<String>,
    /// How many distinct sessions that is.
    pub frequency: usize,
    /// The highest Jaccard similarity with another returned pattern.
    pub similarity: f64,
    /// `ln(frequency) / ln(3) × (1 − similarity)`, clamped to [0, 1].
    pub confidence: f64,
    /// `sha256:<hex>` of the tool names, one per line: the same sequence
    /// always has the same fingerprint.
    pub fingerprint: String,
}

/// `ln(frequency) / ln(3) × (1 − similarity)`, clamped to [0, 1].
pub fn confidence(frequency: usize, similarity: f64) -> f64 {
    if frequency == 0 {
        return 0.0;
    }
    let value = (frequency as f64).ln() / 3f64.ln() * (1.0 - similarity);
    if value.is_nan() {
        0.0
    } else {
        value.clamp(0.0, 1.0)
    }
}

/// The Jaccard similarity of the sets of tools of `a` and `b`.
pub fn jaccard(a: &[impl AsRef<str>], b: &[impl AsRef<str>]) -> f64 {
    let a: BTreeSet<&str> = a.iter().map(AsRef::as_ref).collect();
    let b: BTreeSet<&str> = b.iter().map(AsRef::as_ref).collect();
    let union = a.union(&b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(&b).count() as f64 / union as f64
}

/// The same on interned, sorted, deduplicated ids.
fn jaccard_ids(a: &[u32], b: &[u32]) -> f64 {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - common;
    if union == 0 {
        0.0
    } else {
        common as f64 / union as f64
    }
}

/// The longest window counted.
pub const MAX_WINDOW: usize = 8;

/// A window of interned tools, padded with [`PAD`]: no allocation per
/// window, and its length is part of it.
type Key = [u32; MAX_WINDOW];
const PAD: u32 = u32::MAX;

fn key(window: &[u32]) -> Key {
    let mut key = [PAD; MAX_WINDOW];
    key[..window.len()].copy_from_slice(window);
    key
}

fn len_of(key: &Key) -> usize {
    key.iter().position(|&t| t == PAD).unwrap_or(MAX_WINDOW)
}

/// A multiply-rotate hasher (the one rustc uses): windows are counted
/// millions of times and are not attacker-chosen keys of a long-lived map.
#[derive(Default, Clone, Copy)]
struct Fx(u64);

impl std::hash::Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(4) {
            let mut word = [0u8; 4];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u32(u32::from_le_bytes(word));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(n)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u32(n as u32);
    }
}

type FxMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<Fx>>;

/// Sessions a window was counted in, and the last of them (a session's
/// sequences are counted one after another, so a repeat is noticed).
#[derive(Clone, Copy)]
struct Count {
    sessions: u32,
    last: u32,
}

/// Sessions with their tools interned: each distinct tool name and session
/// id is held once, and a call is 4 bytes. A log of millions of calls is
/// read into this a call at a time ([`Sessions::call`]), never as events.
#[derive(Debug, Default, Clone)]
pub struct Sessions {
    names: Vec<String>,
    tool_ids: HashMap<String, u32>,
    session_names: Vec<String>,
    session_ids: HashMap<String, u32>,
    /// Each run of calls with its session's index (one session's calls may
    /// come in several runs; detection sorts them together).
    sequences: Vec<(u32, Vec<u32>)>,
}

impl Sessions {
    /// No sessions yet.
    pub fn new() -> Self {
        Sessions::default()
    }

    /// Appends a call of `tool` to session `session` (a new run when the
    /// previous call was another session's).
    pub fn call(&mut self, session: &str, tool: &str) {
        let sid = intern(&mut self.session_ids, &mut self.session_names, session);
        let tid = intern(&mut self.tool_ids, &mut self.names, tool);
        match self.sequences.last_mut() {
            Some((last, tools)) if *last == sid => tools.push(tid),
            _ => self.sequences.push((sid, vec![tid])),
        }
    }

    /// Starts a new run for `session` even when the last call was its own
    /// (two logs of one id are two runs: no window spans them).
    pub fn start(&mut self, session: &str) {
        let sid = intern(&mut self.session_ids, &mut self.session_names, session);
        self.sequences.push((sid, Vec::new()));
    }

    /// Calls held, over all sessions.
    pub fn calls(&self) -> usize {
        self.sequences.iter().map(|(_, tools)| tools.len()).sum()
    }

    /// Distinct session ids.
    pub fn len(&self) -> usize {
        self.session_names.len()
    }

    /// Whether there is no session.
    pub fn is_empty(&self) -> bool {
        self.session_names.is_empty()
    }
}

impl From<&[Session]> for Sessions {
    fn from(list: &[Session]) -> Self {
        let mut out = Sessions::new();
        for session in list {
            out.start(&session.id);
            for tool in &session.tools {
                out.call(&session.id, tool);
            }
        }
        out
    }
}

fn intern(ids: &mut HashMap<String, u32>, names: &mut Vec<String>, name: &str) -> u32 {
    if let Some(&id) = ids.get(name) {
        return id;
    }
    let id = names.len() as u32;
    names.push(name.to_string());
    ids.insert(name.to_string(), id);
    id
}

/// Most distinct windows of one length counted. Past it, windows not seen
/// yet are not counted (those already counted still are), so detection runs
/// in bounded memory whatever a log holds. Just under 7/8 of 2^20, so the
/// count table stays at 2^20 slots of 41 bytes (about 41 MiB) and never
/// doubles.
pub const MAX_COUNTED_WINDOWS: usize = 900_000;

/// Finds the repeated sequences of `sessions`, highest confidence first
/// (then frequency, length and tool names, so the order is total).
/// Windows longer than [`MAX_WINDOW`] are not counted.
pub fn detect(sessions: &[Session], options: &Options) -> Vec<Pattern> {
    detect_in(&Sessions::from(sessions), options)
}

/// [`detect`] over sessions already interned.
pub fn detect_in(interned: &Sessions, options: &Options) -> Vec<Pattern> {
    let max_len = options.max_len.clamp(1, MAX_WINDOW);
    let min_len = options.min_len.clamp(1, max_len);
    let min_sessions = options.min_sessions.max(1) as u32;
    let max_windows = options.max_windows.min(MAX_COUNTED_WINDOWS);
    let names = &interned.names;
    let session_names = &interned.session_names;
    // Sorted so a session's runs are next to each other.
    let mut sequences: Vec<&(u32, Vec<u32>)> = interned.sequences.iter().collect();
    sequences.sort_by_key(|(sid, _)| *sid);
    // Each tool's place in name order, to order patterns by their names
    // without building strings.
    let mut by_name: Vec<u32> = (0..names.len() as u32).collect();
    by_name.sort_by_key(|&t| names[t as usize].as_str());
    let mut rank = vec![0u32; names.len()];
    for (place, &tool) in by_name.iter().enumerate() {
        rank[tool as usize] = place as u32;
    }

    // Level by level, from single calls (for pruning) up to max_len;
    // levels[l] holds the frequent windows of length l + 1.
    let mut levels: Vec<FxMap<Key, u32>> = Vec::new();
    let mut capped = false;
    for len in 1..=max_len {
        let mut counts: FxMap<Key, Count> = FxMap::default();
        let previous = levels.last();
        for (sid, sequence) in &sequences {
            for window in sequence.windows(len) {
                if let Some(previous) = previous
                    && !(previous.contains_key(&key(&window[..len - 1]))
                        && previous.contains_key(&key(&window[1..])))
                {
                    continue;
                }
                let k = key(window);
                if counts.len() >= max_windows && !counts.contains_key(&k) {
                    capped = true;
                    continue;
                }
                let count = counts.entry(k).or_insert(Count {
                    sessions: 0,
                    last: PAD,
                });
                if count.last != *sid {
                    count.sessions += 1;
                    count.last = *sid;
                }
            }
        }
        let frequent: FxMap<Key, u32> = counts
            .into_iter()
            .filter(|(_, c)| c.sessions >= min_sessions)
            .map(|(k, c)| (k, c.sessions))
            .collect();
        if frequent.is_empty() {
            break;
        }
        levels.push(frequent);
    }
    if capped {
        tracing::warn!(
            "the sessions hold more than {max_windows} distinct tool sequences of one length; \
             sequences first seen after that were not counted"
        );
    }

    // Superset containment: drop a window whose one-longer extension
    // appears in as many sessions (longer ones follow by induction).
    let mut absorbed: HashSet<Key, std::hash::BuildHasherDefault<Fx>> = HashSet::default();
    for len in (min_len + 1)..=levels.len() {
        for (window, &frequency) in &levels[len - 1] {
            for part in [&window[..len - 1], &window[1..len]] {
                let part = key(part);
                if levels[len - 2].get(&part) == Some(&frequency) {
                    absorbed.insert(part);
                }
            }
        }
    }
    let mut ordered: Vec<(Key, u32)> = levels
        .iter()
        .skip(min_len - 1)
        .flat_map(|level| level.iter().map(|(k, &f)| (*k, f)))
        .filter(|(k, _)| !absorbed.contains(k))
        .collect();
    let ranks = |k: &Key| -> [u32; MAX_WINDOW] {
        k.map(|t| if t == PAD { 0 } else { rank[t as usize] + 1 })
    };
    ordered.sort_unstable_by(|(ka, fa), (kb, fb)| {
        fb.cmp(fa)
            .then(len_of(kb).cmp(&len_of(ka)))
            .then_with(|| ranks(ka).cmp(&ranks(kb)))
    });

    // Jaccard near-duplicates, most frequent first.
    let set = |k: &Key| -> Vec<u32> {
        let mut ids = k[..len_of(k)].to_vec();
        ids.sort_unstable();
        ids.dedup();
        ids
    };
    let mut kept: Vec<(Key, u32, Vec<u32>)> = Vec::new();
    for (window, frequency) in ordered {
        if kept.len() >= options.max_patterns {
            break;
        }
        let ids = set(&window);
        if kept
            .iter()
            .any(|(_, _, other)| jaccard_ids(&ids, other) >= options.near_duplicate)
        {
            continue;
        }
        kept.push((window, frequency, ids));
    }

    // The sessions of the kept patterns, in one more pass.
    let wanted: FxMap<Key, usize> = kept
        .iter()
        .enumerate()
        .map(|(i, (k, _, _))| (*k, i))
        .collect();
    let lengths: BTreeSet<usize> = kept.iter().map(|(k, _, _)| len_of(k)).collect();
    let mut found: Vec<Vec<u32>> = vec![Vec::new(); kept.len()];
    for (sid, sequence) in &sequences {
        for &len in &lengths {
            for window in sequence.windows(len) {
                if let Some(&i) = wanted.get(&key(window))
                    && found[i].last() != Some(sid)
                {
                    found[i].push(*sid);
                }
            }
        }
    }

    let mut patterns: Vec<Pattern> = kept
        .iter()
        .enumerate()
        .map(|(i, (window, frequency, ids))| {
            let similarity = kept
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, (_, _, other))| jaccard_ids(ids, other))
                .fold(0.0, f64::max);
            let tools: Vec<String> = window[..len_of(window)]
                .iter()
                .map(|&t| names[t as usize].to_string())
                .collect();
            let mut sessions: Vec<String> = found[i]
                .iter()
                .map(|&s| session_names[s as usize].to_string())
                .collect();
            sessions.sort();
            let frequency = *frequency as usize;
            Pattern {
                fingerprint: skillhost_skill::digest::sha256(tools.join("\n").as_bytes()),
                frequency,
                confidence: confidence(frequency, similarity),
                similarity,
                sessions,
                tools,
            }
        })
        .collect();
    patterns.sort_by(|a, b| {
        b.confidence
            .total_cmp(&a.confidence)
            .then(b.frequency.cmp(&a.frequency))
            .then(b.tools.len().cmp(&a.tools.len()))
            .then_with(|| a.tools.cmp(&b.tools))
    });
    patterns
}

/// A kebab-case skill name from steps ([`steps`](super::steps) labels):
/// what each did (`Bash($git add)` gives `git add`, `Edit(.rs)` gives
/// `edit rs`), else the first word of its tool (`search_papers,
/// download_paper, rag_search` → `search-download-rag`; an MCP tool
/// `mcp__server__tool` by its own name); a word already in the name is not
/// repeated (`git status`, `git add` → `git-status-add`); at most 64
/// characters.
pub fn skill_name(tools: &[impl AsRef<str>]) -> String {
    let mut name = String::new();
    let mut used: Vec<String> = Vec::new();
    for label in tools {
        let step = super::steps::parse(label.as_ref());
        let words = step.words(|tool| {
            let tool = tool.rsplit("__").find(|s| !s.is_empty()).unwrap_or(tool);
            let word = first_word(tool);
            if word.is_empty() {
                "step".to_string()
            } else {
                word
            }
        });
        for word in words {
            if used.contains(&word) {
                continue;
            }
            if name.len() + 1 + word.len() > skillhost_skill::names::MAX_NAME_CHARS {
                return if name.is_empty() {
                    "pattern".to_string()
                } else {
                    name
                };
            }
            if !name.is_empty() {
                name.push('-');
            }
            name.push_str(&word);
            used.push(word);
        }
    }
    if name.is_empty() {
        "pattern".to_string()
    } else {
        name
    }
}

/// The first word of `tool`, lowercase ASCII letters and digits, words
/// ending at anything else or where lowercase turns to uppercase (`WebFetch`).
fn first_word(tool: &str) -> String {
    let mut word = String::new();
    let mut previous_lower = false;
    for c in tool.chars() {
        if !c.is_ascii_alphanumeric() {
            if word.is_empty() {
                continue;
            }
            break;
        }
        if c.is_ascii_uppercase() && previous_lower && !word.is_empty() {
            break;
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        word.push(c.to_ascii_lowercase());
        if word.len() >= 24 {
            break;
        }
    }
    word
}

#[cfg(test)]
#[path = "patterns_tests.rs"]
mod tests;
