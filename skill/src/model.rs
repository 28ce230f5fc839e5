//! What a parsed frontmatter is: its typed fields, and the problems found in
//! a document. The parsers (YAML, JSON, the field rules) all produce these;
//! they live apart from every parser so none imports another to name them.

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
    /// The name it is served under: the declared name, or the folder (or
    /// flat file) name when none is given or the declared one cannot name a
    /// command ([`crate::names::served`]).
    pub name: String,
    /// The declared name, when it is served under another: the text to show.
    pub display_name: Option<String>,
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
            display_name: None,
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
    pub(crate) fn new(line: Option<u32>, field: Option<&str>, message: impl Into<String>) -> Self {
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
