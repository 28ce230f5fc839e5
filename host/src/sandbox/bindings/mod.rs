//! Host-side bindings of each version of the provider contract, one module
//! per version of `wit/` (a released version is never edited).
//!
//! Everything above these modules speaks one model ([`super::contract`]):
//! the host's imports are implemented once, against the latest version's
//! types ([`latest`]), and each older version's module converts its calls
//! into them; every version's answers convert into the model. A rule about
//! what a provider may do therefore has one home, whatever version the
//! provider was built for.

pub(crate) mod v0_1_0;
pub(crate) mod v0_2_0;
pub(crate) mod v0_3_0;

pub(crate) use v0_3_0 as latest;

/// Maps between two enums whose cases have the same names.
macro_rules! same_cases {
    ($from:ty => $to:ty { $($case:ident),* $(,)? }) => {
        impl From<$from> for $to {
            fn from(value: $from) -> $to {
                match value {
                    $(<$from>::$case => <$to>::$case,)*
                }
            }
        }
    };
}
pub(crate) use same_cases;

/// The typed frontmatter record of 0.1.0 and 0.2.0 (the same fields in
/// both), as the format crate's [`Frontmatter`], kept as the component
/// gave it, but for its verbatim text, which the entry carries. A field
/// added to the format since is defaulted.
///
/// [`Frontmatter`]: skillhost_skill::frontmatter::Frontmatter
macro_rules! given_frontmatter {
    ($f:expr, $context:ty) => {{
        let f = $f;
        skillhost_skill::frontmatter::Frontmatter {
            description: f.description,
            when_to_use: f.when_to_use,
            argument_hint: f.argument_hint,
            context: match f.context {
                <$context>::Inline => skillhost_skill::frontmatter::Context::Inline,
                <$context>::Fork => skillhost_skill::frontmatter::Context::Fork,
            },
            model: f.model,
            effort: f.effort,
            allowed_tools: f.allowed_tools,
            user_invocable: f.user_invocable,
            disable_model_invocation: f.disable_model_invocation,
            paths: f.paths,
            aliases: f.aliases,
            version: f.version,
            agent: f.agent,
            pinned: f.pinned,
            license: f.license,
            compatibility: f.compatibility,
            metadata: f.metadata,
            ..skillhost_skill::frontmatter::Frontmatter::defaults(&f.name)
        }
    }};
}
pub(crate) use given_frontmatter;
