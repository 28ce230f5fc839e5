//! The one `SKILL.md` parser: splits the YAML frontmatter from the Markdown
//! body and normalises the fields (SPEC A1, A2, A4).
//!
//! It is lenient where real-world files are messy (CRLF, a BOM, block
//! scalars, booleans written as strings, unquoted globs, unknown fields) and
//! strict where a wrong guess would be dangerous (unsafe names, broken YAML,
//! files that are not UTF-8 or too large).

use crate::braces::expand_braces;
use crate::names::check_name;
use crate::node::{Fields, Node, fields_from_mapping};
use serde_yaml::Value;

/// Largest skill document accepted, in bytes.
pub const MAX_DOCUMENT_BYTES: u64 = 1024 * 1024;

/// How an invoked skill runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Context {
    /// The expanded body joins the current conversation.
    #[default]
    Inline,
    /// The expanded body runs in a separate sub-agent.
    Fork,
}

/// A skill's frontmatter, verbatim and normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frontmatter {
    /// The YAML text between the `---` lines, exactly as written.
    pub raw: String,
    /// The declared name, or the folder (or flat file) name when none is given.
    pub name: String,
    /// The description, trimmed; `None` when missing or empty.
    pub description: Option<String>,
    /// When the model should use the skill (`when_to_use`).
    pub when_to_use: Option<String>,
    /// A hint for the arguments (`argument-hint`).
    pub argument_hint: Option<String>,
    /// Inline or fork execution (`context`).
    pub context: Context,
    /// The model a fork should use.
    pub model: Option<String>,
    /// The thinking effort a fork should use.
    pub effort: Option<String>,
    /// Tools the skill may use (`allowed-tools`).
    pub allowed_tools: Vec<String>,
    /// Whether users may invoke the skill (`user-invocable`, default true).
    pub user_invocable: bool,
    /// Whether the model is barred from invoking it (`disable-model-invocation`).
    pub disable_model_invocation: bool,
    /// Conditional-activation globs, brace expansion applied.
    pub paths: Vec<String>,
    /// Other names the skill answers to.
    pub aliases: Vec<String>,
    /// The skill's version, as text.
    pub version: Option<String>,
    /// The agent type a fork should run as.
    pub agent: Option<String>,
    /// Whether the curator keeps the skill active regardless of use.
    pub pinned: bool,
    /// The skill's licence.
    pub license: Option<String>,
    /// Environment requirements (`compatibility`).
    pub compatibility: Option<String>,
    /// The `metadata` map, values rendered as text.
    pub metadata: Vec<(String, String)>,
}

impl Frontmatter {
    /// The frontmatter a document without any gets: every field defaulted.
    pub fn defaults(name: &str) -> Self {
        Frontmatter {
            raw: String::new(),
            name: name.to_string(),
            description: None,
            when_to_use: None,
            argument_hint: None,
            context: Context::Inline,
            model: None,
            effort: None,
            allowed_tools: Vec::new(),
            user_invocable: true,
            disable_model_invocation: false,
            paths: Vec::new(),
            aliases: Vec::new(),
            version: None,
            agent: None,
            pinned: false,
            license: None,
            compatibility: None,
            metadata: Vec::new(),
        }
    }
}

/// A problem found in a document: where, which field, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The 1-based line in the document, where known.
    pub line: Option<u32>,
    /// The frontmatter field concerned, where there is one.
    pub field: Option<String>,
    /// What is wrong, in words.
    pub message: String,
}

impl Finding {
    fn new(line: Option<u32>, field: Option<&str>, message: impl Into<String>) -> Self {
        Finding {
            line,
            field: field.map(str::to_string),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        if let Some(field) = &self.field {
            write!(f, "{field}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// A successfully parsed document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document<'a> {
    /// The normalised frontmatter.
    pub frontmatter: Frontmatter,
    /// The Markdown after the closing `---` (the whole text when there is no
    /// frontmatter).
    pub body: &'a str,
    /// Whether the document opened with a frontmatter block.
    pub has_frontmatter: bool,
    /// Problems that did not stop the skill from loading.
    pub warnings: Vec<Finding>,
}

/// Whether `bytes` opens with a `---` line, which is what makes a flat `.md`
/// file a skill (a `README.md` beside the skills is not one).
pub fn starts_with_frontmatter(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let Some(rest) = bytes.strip_prefix(b"---") else {
        return false;
    };
    let line_end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    rest[..line_end].iter().all(|b| b.is_ascii_whitespace())
}

/// Parses a whole skill document. `default_name` is the folder (or flat file)
/// name used when the frontmatter gives none.
pub fn parse_document<'a>(bytes: &'a [u8], default_name: &str) -> Result<Document<'a>, Finding> {
    if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    // The SIMD validator is several times faster (also inside the sandbox);
    // std's finds the position to report when it fails.
    let text = simdutf8::basic::from_utf8(bytes)
        .or_else(|_| std::str::from_utf8(bytes))
        .map_err(|e| {
            let line = line_of_offset(bytes, e.valid_up_to());
            Finding::new(
                Some(line),
                None,
                format!("not valid UTF-8 (byte {})", e.valid_up_to()),
            )
        })?;
    let Some((raw, body)) = split_frontmatter(text)? else {
        let mut frontmatter = Frontmatter::defaults(default_name);
        check_name(&frontmatter.name)
            .map_err(|e| Finding::new(None, Some("name"), e.to_string()))?;
        frontmatter.raw = String::new();
        return Ok(Document {
            frontmatter,
            body: text,
            has_frontmatter: false,
            warnings: vec![Finding::new(
                Some(1),
                Some("description"),
                "no frontmatter: the skill has no description",
            )],
        });
    };
    let fields = parse_yaml(raw)?;
    let mut warnings = Vec::new();
    let frontmatter = normalise(raw, &fields, default_name, &mut warnings)?;
    Ok(Document {
        frontmatter,
        body,
        has_frontmatter: true,
        warnings,
    })
}

/// The finding for a document over [`MAX_DOCUMENT_BYTES`].
pub fn too_large(size: u64) -> Finding {
    Finding::new(
        None,
        None,
        format!("file is {size} bytes, larger than the 1 MiB limit"),
    )
}

fn line_of_offset(bytes: &[u8], offset: usize) -> u32 {
    let newlines = bytes[..offset.min(bytes.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    u32::try_from(newlines).unwrap_or(u32::MAX - 1) + 1
}

/// Splits `---\n<yaml>\n---\n<body>`; `None` when the text does not open
/// with a `---` line.
fn split_frontmatter(text: &str) -> Result<Option<(&str, &str)>, Finding> {
    let bytes = text.as_bytes();
    // A `---` line, trailing whitespace allowed (the byte search matters
    // inside the sandbox, where every scanned line costs).
    let is_fence =
        |line: &[u8]| line.starts_with(b"---") && line[3..].iter().all(u8::is_ascii_whitespace);
    let first_end = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |i| i + 1);
    if !is_fence(&bytes[..first_end]) {
        return Ok(None);
    }
    let mut offset = first_end;
    while offset < bytes.len() {
        let line_end =
            memchr::memchr(b'\n', &bytes[offset..]).map_or(bytes.len(), |i| offset + i + 1);
        if is_fence(&bytes[offset..line_end]) {
            // Both ends are at line boundaries, so both are char boundaries.
            return Ok(Some((&text[first_end..offset], &text[line_end..])));
        }
        offset = line_end;
    }
    Err(Finding::new(
        Some(1),
        None,
        "frontmatter opened with '---' on line 1 is never closed",
    ))
}

/// Parses the YAML block; retries once with troublesome plain values quoted
/// (unquoted globs such as `*.md` or `{src,lib}/**`, and `key: a: b`), the
/// way agent hosts have long accepted them. Line numbers are file lines.
fn parse_yaml(raw: &str) -> Result<Fields<'_>, Finding> {
    if let Some(fields) = crate::fast_yaml::parse(raw) {
        return Ok(fields);
    }
    let first = match serde_yaml::from_str::<Value>(raw) {
        Ok(value) => return into_mapping(value),
        Err(e) => e,
    };
    if let Some(fixed) = quote_troublesome_values(raw)
        && let Ok(value) = serde_yaml::from_str::<Value>(&fixed)
    {
        return into_mapping(value);
    }
    let line = first
        .location()
        .map(|l| u32::try_from(l.line()).unwrap_or(u32::MAX - 1) + 1);
    let message = first.to_string();
    // serde_yaml appends " at line L column C" in its own numbering.
    let message = message
        .split(" at line ")
        .next()
        .unwrap_or(&message)
        .to_string();
    Err(Finding::new(line, None, format!("invalid YAML: {message}")))
}

fn into_mapping(value: Value) -> Result<Fields<'static>, Finding> {
    match value {
        Value::Mapping(m) => Ok(fields_from_mapping(m)),
        Value::Null => Ok(Vec::new()),
        other => Err(Finding::new(
            Some(2),
            None,
            format!(
                "frontmatter must be a mapping of fields, found {}",
                crate::node::from_value(other).kind()
            ),
        )),
    }
}

fn quote_troublesome_values(raw: &str) -> Option<String> {
    let mut changed = false;
    let mut out = String::with_capacity(raw.len() + 16);
    for line in raw.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let ending = &line[content.len()..];
        match troublesome_value_start(content) {
            Some(start) => {
                let value = content[start..].trim_end();
                out.push_str(&content[..start]);
                out.push('\'');
                out.push_str(&value.replace('\'', "''"));
                out.push('\'');
                out.push_str(ending);
                changed = true;
            }
            None => out.push_str(line),
        }
    }
    changed.then_some(out)
}

/// Where the value of a `key: value` or `- value` line starts, if that value
/// is a plain scalar YAML would misread: an unquoted glob (`*.md` reads as an
/// alias, `{src,lib}/**` as a broken flow mapping) or `key: a: b`.
fn troublesome_value_start(line: &str) -> Option<usize> {
    let leading_ws = |s: &str| s.len() - s.trim_start().len();
    let indent = leading_ws(line);
    let rest = &line[indent..];
    let (value_start, is_item) = if let Some(item) = rest.strip_prefix("- ") {
        (indent + 2 + leading_ws(item), true)
    } else {
        let colon = rest.find(": ")?;
        let key = &rest[..colon];
        let plain_key = key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_');
        if key.is_empty() || !plain_key {
            return None;
        }
        let after = &rest[colon + 1..];
        (indent + colon + 1 + leading_ws(after), false)
    };
    let value = line[value_start..].trim_end();
    let troublesome = match value.chars().next()? {
        '*' => true,
        '{' => serde_yaml::from_str::<Value>(value).is_err(),
        '"' | '\'' | '|' | '>' | '[' | '&' | '!' | '#' => false,
        _ => !is_item && value.contains(": "),
    };
    troublesome.then_some(value_start)
}

/// Reads fields out of the frontmatter, collecting warnings for values of
/// the wrong shape (which fall back to their defaults).
struct Reader<'f, 'a, 'w> {
    fields: &'f Fields<'a>,
    warnings: &'w mut Vec<Finding>,
}

impl<'f, 'a> Reader<'f, 'a, '_> {
    fn get(&self, key: &str) -> Option<&'f Node<'a>> {
        let fields: &'f Fields<'a> = self.fields;
        match fields.iter().find(|(k, _)| k == key) {
            None | Some((_, Node::Null)) => None,
            Some((_, v)) => Some(v),
        }
    }

    fn warn(&mut self, key: &str, message: String) {
        self.warnings.push(Finding::new(None, Some(key), message));
    }

    fn text(&mut self, key: &str) -> Option<String> {
        let value = self.get(key)?;
        match value.scalar_text() {
            Some(s) => {
                let trimmed = s.trim();
                (!trimmed.is_empty()).then(|| trimmed.to_string())
            }
            None => {
                let found = value.kind();
                self.warn(key, format!("must be text, found {found}; ignored"));
                None
            }
        }
    }

    fn flag(&mut self, key: &str, default: bool) -> bool {
        let Some(value) = self.get(key) else {
            return default;
        };
        match value {
            Node::Bool(b) => *b,
            Node::Text(s) if s.trim().eq_ignore_ascii_case("true") => true,
            Node::Text(s) if s.trim().eq_ignore_ascii_case("false") => false,
            other => {
                let found = other
                    .scalar_text()
                    .map_or_else(|| other.kind().to_string(), |t| t.into_owned());
                self.warn(
                    key,
                    format!("must be true or false, found {found:?}; using {default}"),
                );
                default
            }
        }
    }

    /// A list given as a YAML sequence or as one string split by `split`.
    fn list(&mut self, key: &str, split: Splitter) -> Vec<String> {
        let Some(value) = self.get(key) else {
            return Vec::new();
        };
        let mut out: Vec<String> = Vec::new();
        let mut push = |item: &str| {
            let item = item.trim();
            if !item.is_empty() && !out.iter().any(|x| x == item) {
                out.push(item.to_string());
            }
        };
        match value {
            Node::Seq(items) => {
                for item in items {
                    match item.scalar_text() {
                        Some(s) => push(&s),
                        None => {
                            let found = item.kind();
                            self.warnings.push(Finding::new(
                                None,
                                Some(key),
                                format!("list items must be text, found {found}"),
                            ));
                        }
                    }
                }
            }
            other => match other.scalar_text() {
                Some(s) => split(&s, &mut push),
                None => {
                    let found = other.kind();
                    self.warn(key, format!("must be a list or text, found {found}"));
                }
            },
        }
        out
    }

    fn metadata(&mut self) -> Vec<(String, String)> {
        let Some(value) = self.get("metadata") else {
            return Vec::new();
        };
        let Node::Map(pairs) = value else {
            let found = value.kind();
            self.warn("metadata", format!("must be a mapping, found {found}"));
            return Vec::new();
        };
        pairs
            .iter()
            .filter_map(|(k, v)| {
                let key = k.scalar_text()?.into_owned();
                let text = match v.scalar_text() {
                    Some(s) => s.into_owned(),
                    None => serde_yaml::to_string(&v.to_value())
                        .ok()?
                        .trim_end()
                        .to_string(),
                };
                Some((key, text))
            })
            .collect()
    }
}

/// Splits a one-string list, handing each piece to the callback.
type Splitter = fn(&str, &mut dyn FnMut(&str));

/// Hands `out` each piece of `s` between characters for which `separator`
/// holds, except inside `open`/`close` pairs.
fn split_outside(
    s: &str,
    open: char,
    close: char,
    separator: fn(char) -> bool,
    out: &mut dyn FnMut(&str),
) {
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && separator(c) {
            out(&s[start..i]);
            start = i + c.len_utf8();
        }
    }
    out(&s[start..]);
}

/// Tools: commas and whitespace separate, except inside parentheses, so
/// `Read, Bash(git diff:*)` is two tools.
fn split_list_item(s: &str, out: &mut dyn FnMut(&str)) {
    split_outside(s, '(', ')', |c| c == ',' || c.is_whitespace(), out);
}

/// Globs: commas separate, except inside braces, so `*.{ts,tsx}, docs/**`
/// is two patterns before brace expansion.
fn split_commas(s: &str, out: &mut dyn FnMut(&str)) {
    split_outside(s, '{', '}', |c| c == ',', out);
}

fn normalise(
    raw: &str,
    fields: &Fields<'_>,
    default_name: &str,
    warnings: &mut Vec<Finding>,
) -> Result<Frontmatter, Finding> {
    let mut f = Reader { fields, warnings };
    let name = match f.get("name") {
        None => default_name.to_string(),
        Some(value) => match value.scalar_text() {
            Some(name) => name.trim().to_string(),
            None => {
                let found = value.kind();
                return Err(Finding::new(
                    None,
                    Some("name"),
                    format!("must be text, found {found}"),
                ));
            }
        },
    };
    check_name(&name).map_err(|e| Finding::new(None, Some("name"), e.to_string()))?;

    let description = f.text("description");
    if description.is_none() {
        f.warn(
            "description",
            "missing: the model cannot tell when to use this skill".to_string(),
        );
    }
    let context = match f.text("context") {
        None => Context::Inline,
        Some(c) if c.eq_ignore_ascii_case("inline") => Context::Inline,
        Some(c) if c.eq_ignore_ascii_case("fork") => Context::Fork,
        Some(c) => {
            f.warn(
                "context",
                format!("must be inline or fork, found {c:?}; using inline"),
            );
            Context::Inline
        }
    };
    let paths = f
        .list("paths", split_commas)
        .iter()
        .flat_map(|p| expand_braces(p))
        .fold(Vec::new(), |mut acc: Vec<String>, p| {
            if !acc.contains(&p) {
                acc.push(p);
            }
            acc
        });
    let aliases = f.list("aliases", split_list_item);
    for alias in &aliases {
        if let Err(e) = check_name(alias) {
            f.warn("aliases", format!("alias {alias:?} is unusable: {e}"));
        }
    }
    let aliases = aliases
        .into_iter()
        .filter(|a| check_name(a).is_ok() && *a != name)
        .collect();
    Ok(Frontmatter {
        raw: raw.to_string(),
        name,
        description,
        when_to_use: f.text("when_to_use"),
        argument_hint: f.text("argument-hint"),
        context,
        model: f.text("model"),
        effort: f.text("effort"),
        allowed_tools: f.list("allowed-tools", split_list_item),
        user_invocable: f.flag("user-invocable", true),
        disable_model_invocation: f.flag("disable-model-invocation", false),
        paths,
        aliases,
        version: f.text("version"),
        agent: f.text("agent"),
        pinned: f.flag("pinned", false),
        license: f.text("license"),
        compatibility: f.text("compatibility"),
        metadata: f.metadata(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Document<'_>, Finding> {
        parse_document(text.as_bytes(), "folder")
    }

    #[test]
    fn parses_every_documented_field() {
        let doc = parse(
            "---\nname: commit\ndescription: Create a git commit\nwhen_to_use: When committing\n\
             argument-hint: \"[message]\"\ncontext: fork\nmodel: sonnet\neffort: high\n\
             allowed-tools:\n  - Bash\n  - Read\nuser-invocable: \"false\"\n\
             disable-model-invocation: \"true\"\npaths: \"src/**/*.{ts,tsx}\"\n\
             aliases: [git-commit, gc]\nversion: 1.0\nagent: reviewer\npinned: true\n\
             license: MIT\ncompatibility: needs git\nmetadata:\n  author: me\n  tags: [a, b]\n\
             hooks:\n  PreToolUse: []\nx-custom: kept\n---\n# Commit\n$ARGUMENTS\n",
        )
        .unwrap();
        let f = &doc.frontmatter;
        assert_eq!(f.name, "commit");
        assert_eq!(f.description.as_deref(), Some("Create a git commit"));
        assert_eq!(f.when_to_use.as_deref(), Some("When committing"));
        assert_eq!(f.argument_hint.as_deref(), Some("[message]"));
        assert_eq!(f.context, Context::Fork);
        assert_eq!(f.model.as_deref(), Some("sonnet"));
        assert_eq!(f.effort.as_deref(), Some("high"));
        assert_eq!(f.allowed_tools, ["Bash", "Read"]);
        assert!(!f.user_invocable);
        assert!(f.disable_model_invocation);
        assert_eq!(f.paths, ["src/**/*.ts", "src/**/*.tsx"]);
        assert_eq!(f.aliases, ["git-commit", "gc"]);
        assert_eq!(f.version.as_deref(), Some("1.0"));
        assert_eq!(f.agent.as_deref(), Some("reviewer"));
        assert!(f.pinned);
        assert_eq!(f.license.as_deref(), Some("MIT"));
        assert_eq!(f.compatibility.as_deref(), Some("needs git"));
        assert_eq!(f.metadata[0], ("author".to_string(), "me".to_string()));
        assert!(f.raw.contains("x-custom: kept"));
        assert!(f.raw.contains("hooks:"));
        assert_eq!(doc.body, "# Commit\n$ARGUMENTS\n");
        assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    }

    #[test]
    fn missing_name_defaults_to_folder_and_missing_description_warns() {
        let doc = parse("---\nlicense: MIT\n---\nbody").unwrap();
        assert_eq!(doc.frontmatter.name, "folder");
        assert_eq!(doc.frontmatter.description, None);
        assert_eq!(doc.warnings[0].field.as_deref(), Some("description"));
    }

    #[test]
    fn allowed_tools_string_splits_on_commas_and_whitespace() {
        let doc = parse("---\ndescription: d\nallowed-tools: Read, Grep Bash(git diff:*)\n---\n")
            .unwrap();
        assert_eq!(
            doc.frontmatter.allowed_tools,
            ["Read", "Grep", "Bash(git diff:*)"]
        );
    }

    #[test]
    fn paths_list_and_unquoted_globs_are_accepted() {
        let doc =
            parse("---\ndescription: d\npaths:\n  - *.md\n  - {src,lib}/**/*.rs\n---\n").unwrap();
        assert_eq!(
            doc.frontmatter.paths,
            ["*.md", "src/**/*.rs", "lib/**/*.rs"]
        );
        let doc = parse("---\ndescription: d\npaths: *.{md,txt}, docs/**\n---\n").unwrap();
        assert_eq!(doc.frontmatter.paths, ["*.md", "*.txt", "docs/**"]);
    }

    #[test]
    fn an_unquoted_colon_in_a_description_is_accepted() {
        let doc = parse("---\nname: x\ndescription: Use when: the user asks\n---\n").unwrap();
        assert_eq!(
            doc.frontmatter.description.as_deref(),
            Some("Use when: the user asks")
        );
        assert!(
            doc.frontmatter
                .raw
                .contains("description: Use when: the user asks")
        );
    }

    #[test]
    fn crlf_and_bom_are_handled() {
        let doc = parse_document(
            b"\xEF\xBB\xBF---\r\nname: crlf\r\ndescription: >-\r\n  folded\r\n  text\r\n---\r\nbody\r\n",
            "folder",
        )
        .unwrap();
        assert_eq!(doc.frontmatter.name, "crlf");
        assert_eq!(doc.frontmatter.description.as_deref(), Some("folded text"));
        assert_eq!(doc.body, "body\r\n");
    }

    #[test]
    fn block_scalar_descriptions_are_trimmed() {
        let doc = parse("---\ndescription: |\n  line one\n  line two\n---\n").unwrap();
        assert_eq!(
            doc.frontmatter.description.as_deref(),
            Some("line one\nline two")
        );
        let doc = parse("---\ndescription: >\n  folded\n  words\n\n---\n").unwrap();
        assert_eq!(doc.frontmatter.description.as_deref(), Some("folded words"));
    }

    #[test]
    fn unclosed_frontmatter_is_an_error_on_line_one() {
        let err = parse("---\nname: x\ndescription: y\n").unwrap_err();
        assert_eq!(err.line, Some(1));
        assert!(err.message.contains("never closed"), "{err}");
    }

    #[test]
    fn invalid_yaml_reports_the_file_line() {
        let err = parse("---\nname: x\ndescription: [unclosed\nother: 1\n---\n").unwrap_err();
        assert!(err.message.starts_with("invalid YAML"), "{err}");
        assert!(matches!(err.line, Some(3..=5)), "{err:?}");
    }

    #[test]
    fn non_utf8_reports_the_line() {
        let err = parse_document(b"---\nname: x\ndescription: caf\xE9\n---\n", "f").unwrap_err();
        assert_eq!(err.line, Some(3));
        assert!(err.message.contains("UTF-8"));
    }

    #[test]
    fn oversized_documents_are_refused() {
        let big = vec![b'a'; MAX_DOCUMENT_BYTES as usize + 1];
        let err = parse_document(&big, "f").unwrap_err();
        assert!(err.message.contains("1 MiB"), "{err}");
    }

    #[test]
    fn unsafe_names_are_refused_with_the_field() {
        for text in [
            "---\nname: ../../x\n---\n",
            "---\nname: \"a\\nb\"\n---\n",
            "---\nname: \"a\\0b\"\n---\n",
        ] {
            let err = parse(text).unwrap_err();
            assert_eq!(err.field.as_deref(), Some("name"), "{text}");
        }
    }

    #[test]
    fn document_without_frontmatter_loads_with_folder_name() {
        let doc = parse("# Just markdown\n").unwrap();
        assert!(!doc.has_frontmatter);
        assert_eq!(doc.frontmatter.name, "folder");
        assert_eq!(doc.body, "# Just markdown\n");
    }

    #[test]
    fn wrongly_typed_values_warn_and_default() {
        let doc =
            parse("---\ndescription: d\nuser-invocable: maybe\ncontext: later\nmodel: [a]\n---\n")
                .unwrap();
        assert!(doc.frontmatter.user_invocable);
        assert_eq!(doc.frontmatter.context, Context::Inline);
        assert_eq!(doc.frontmatter.model, None);
        let fields: Vec<_> = doc
            .warnings
            .iter()
            .filter_map(|w| w.field.clone())
            .collect();
        assert_eq!(fields, ["context", "model", "user-invocable"]);
    }

    #[test]
    fn detects_frontmatter_at_start_only() {
        assert!(starts_with_frontmatter(b"---\nname: x\n---\n"));
        assert!(starts_with_frontmatter(b"\xEF\xBB\xBF---\r\n"));
        assert!(!starts_with_frontmatter(b"# README\n---\n"));
        assert!(!starts_with_frontmatter(b"----\n"));
    }

    #[test]
    fn non_mapping_frontmatter_is_an_error() {
        let err = parse("---\n- a\n- b\n---\n").unwrap_err();
        assert!(err.message.contains("mapping"), "{err}");
    }
}
