//! Problems worth telling the user, found by a provider or by the host.

use serde_json::{Map, Value, json};

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Something could not be used.
    Error,
    /// Something was used but is off.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A problem found by a provider or by the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// How serious it is.
    pub severity: Severity,
    /// The file or folder concerned (a host path or URL), or the provider's
    /// location.
    pub path: String,
    /// The 1-based line, where known.
    pub line: Option<u32>,
    /// The frontmatter field, where there is one.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
    /// The provider that reported it (or that it is about).
    pub source: Option<String>,
}

impl Diagnostic {
    /// An error about `path`.
    pub fn error(path: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            path: path.into(),
            line: None,
            field: None,
            message: message.into(),
            source: None,
        }
    }

    /// A warning about `path`.
    pub fn warning(path: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(path, message)
        }
    }

    /// The same diagnostic, attributed to provider `source`.
    pub fn from_source(mut self, source: &str) -> Self {
        self.source = Some(source.to_string());
        self
    }

    /// The same diagnostic, about frontmatter field (or other facet) `field`.
    pub fn on_field(mut self, field: &str) -> Self {
        self.field = Some(field.to_string());
        self
    }

    /// The catalog JSON of this diagnostic.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("severity".into(), json!(self.severity.as_str()));
        out.insert("path".into(), json!(self.path));
        if let Some(line) = self.line {
            out.insert("line".into(), json!(line));
        }
        if let Some(field) = &self.field {
            out.insert("field".into(), json!(field));
        }
        out.insert("message".into(), json!(self.message));
        if let Some(source) = &self.source {
            out.insert("source".into(), json!(source));
        }
        Value::Object(out)
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.severity.as_str(), self.path)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}
