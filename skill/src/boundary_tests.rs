//! Property tests of the boundary checks, on generated names and paths
//! (a fixed seed and a bounded number of cases, so a run is repeatable):
//! whatever [`check_name`] accepts is usable as one folder name and one
//! line of a listing, and whatever [`check_relative`] accepts, joined to a
//! base and resolved lexically, never leaves that base.

use crate::names::{MAX_NAME_CHARS, check_name};
use crate::segments::{check_absolute, check_relative};

/// xorshift64: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Characters boundary code must think about, weighted toward the nasty.
const ALPHABET: &[char] = &[
    'a', 'z', 'A', '0', '9', '-', '_', '.', '/', '\\', ':', '<', '>', '&', ' ', '\t', '\n', '\r',
    '\0', '\u{1b}', '\u{7f}', '\u{85}', '\u{2028}', '\u{2029}', '\u{202e}', 'é', '中', '\u{fffd}',
];

/// Segments that are often special.
const SEGMENTS: &[&str] = &[
    "", ".", "..", "...", "a", "SKILL.md", "ref", "..a", "a..", " ",
];

fn word(rng: &mut Rng, max: usize) -> String {
    let len = rng.below(max + 1);
    (0..len)
        .map(|_| ALPHABET[rng.below(ALPHABET.len())])
        .collect()
}

fn path(rng: &mut Rng) -> String {
    let parts = 1 + rng.below(5);
    let mut out = String::new();
    if rng.below(4) == 0 {
        out.push('/');
    }
    for i in 0..parts {
        if i > 0 {
            out.push('/');
        }
        if rng.below(2) == 0 {
            out.push_str(SEGMENTS[rng.below(SEGMENTS.len())]);
        } else {
            out.push_str(&word(rng, 6));
        }
    }
    out
}

/// The depth `path` reaches below its base when resolved lexically
/// (`..` pops), or `None` once it climbs above the base.
fn lexical_depth(path: &str) -> Option<usize> {
    let mut depth: usize = 0;
    for segment in path.split(['/', '\\']) {
        match segment {
            "" | "." => {}
            ".." => depth = depth.checked_sub(1)?,
            _ => depth += 1,
        }
    }
    Some(depth)
}

const CASES: usize = 50_000;

#[test]
fn accepted_names_are_one_safe_folder_and_one_listing_line() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut accepted = 0;
    for _ in 0..CASES {
        let name = word(&mut rng, 70);
        if check_name(&name).is_err() {
            continue;
        }
        accepted += 1;
        assert!(
            !name.is_empty() && name.chars().count() <= MAX_NAME_CHARS,
            "{name:?}"
        );
        assert!(name != "." && name != "..", "{name:?}");
        assert!(
            !name.contains(['/', '\\', ':', '<', '>', '\u{2028}', '\u{2029}']),
            "{name:?}"
        );
        assert!(!name.chars().any(char::is_control), "{name:?}");
        assert_eq!(name.trim(), name, "{name:?}");
        assert_eq!(name.lines().count(), 1, "{name:?}");
        assert_eq!(lexical_depth(&name), Some(1), "one folder: {name:?}");
    }
    assert!(
        accepted > CASES / 100,
        "too few names accepted to test: {accepted}"
    );
}

#[test]
fn accepted_relative_paths_never_leave_their_base() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut accepted = 0;
    for _ in 0..CASES {
        let path = path(&mut rng);
        if check_relative(&path).is_err() {
            continue;
        }
        accepted += 1;
        assert!(!path.starts_with('/') && !path.contains('\\'), "{path:?}");
        assert!(!path.chars().any(char::is_control), "{path:?}");
        let depth = lexical_depth(&path);
        assert_eq!(
            depth,
            Some(path.split('/').count()),
            "every segment goes one level down: {path:?}"
        );
        // Joined the way the host joins it, it stays below the base.
        let base = std::path::Path::new("/base");
        let joined = base.join(&path);
        assert!(joined.starts_with(base), "{path:?} -> {joined:?}");
        assert!(
            joined.components().all(|c| matches!(
                c,
                std::path::Component::RootDir | std::path::Component::Normal(_)
            )),
            "{path:?} -> {joined:?}"
        );
    }
    assert!(
        accepted > CASES / 100,
        "too few paths accepted to test: {accepted}"
    );
}

#[test]
fn accepted_absolute_paths_are_normalised() {
    let mut rng = Rng(0xd1b5_4a32_d192_ed03);
    let mut accepted = 0;
    for _ in 0..CASES {
        let path = path(&mut rng);
        if check_absolute(&path).is_err() {
            continue;
        }
        accepted += 1;
        assert!(path.starts_with('/') && path.len() > 1, "{path:?}");
        assert!(!path.chars().any(char::is_control), "{path:?}");
        let rest = &path[1..];
        assert!(
            rest.split('/')
                .all(|s| !s.is_empty() && s != "." && s != ".."),
            "{path:?}"
        );
        let components: Vec<_> = std::path::Path::new(&path).components().collect();
        assert_eq!(components.len(), rest.split('/').count() + 1, "{path:?}");
    }
    assert!(
        accepted > CASES / 100,
        "too few paths accepted to test: {accepted}"
    );
}
