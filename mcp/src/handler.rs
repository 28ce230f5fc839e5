//! The MCP server handler: every method answered from the current view,
//! and the calls that reach a provider.

use crate::arguments::split;
use crate::calls::{self, Refusal};
use crate::live::{Live, Options};
use crate::sessions::{self, Session};
use crate::tools::{self, SEARCH, SKILL};
use crate::uri;
use crate::view::View;
use rmcp::ErrorData as McpError;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, GetSkillRequestParams,
    GetSkillResult, Implementation, InitializeRequestParams, InitializeResult, ListPromptsResult,
    ListResourcesResult, ListSkillsResult, ListToolsResult, PaginatedRequestParams, PromptMessage,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Role, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use rmcp::{ServerHandler, model::Tool};
use serde_json::Value;
use skillhost::session::invoke::Caller;
use std::sync::Arc;

/// Instructions sent at initialization, for the model as much as for the
/// client: under [`tools::DESCRIPTION_MAX`] characters (a test holds them
/// there), what to call first.
pub const INSTRUCTIONS: &str = "skillhost serves agent skills: instructions, with scripts and \
references, for tasks such as working with a file format, a workflow or a tool. To use one, \
call the `skill` tool with its name; its description lists the most relevant skills. To find \
any other skill, call `search_skills` with a few words (or none, to list them all), a page at a \
time. A skill's files are skill:// resources, readable with resources/read. Clients can also \
list skills with skills/list (the Skills Extension) and offer each as a prompt. The lists \
follow the skills on disk, and clients are told when they change.";

/// What the server says about itself.
pub fn server_config() -> ServerConfig {
    let capabilities = ServerCapabilities::builder()
        .enable_prompts()
        .enable_prompts_list_changed()
        .enable_resources()
        .enable_resources_list_changed()
        .enable_resources_subscribe()
        .enable_tools()
        .enable_tool_list_changed()
        .enable_skills_with_directory_read()
        .build();
    ServerConfig::new(capabilities)
        .with_server_info(Implementation::new("skillhost", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
}

/// The handler of one session (or of one stateless request).
#[derive(Clone)]
pub struct Handler {
    live: Arc<Live>,
    config: Arc<ServerConfig>,
    session: Arc<Session>,
}

impl Handler {
    /// A handler with a session of its own, over the shared live catalog.
    pub fn new(live: Arc<Live>, config: Arc<ServerConfig>) -> Handler {
        Handler {
            live,
            config,
            session: Arc::new(Session::default()),
        }
    }

    fn ttl(&self) -> u64 {
        self.live.options().ttl_ms
    }
}

/// One page of `items` (sorted by `key`) after `cursor`: at most `size`
/// items and, beyond the first, no more than `budget` bytes by `bytes`.
fn page<'a, T>(
    items: &'a [T],
    kind: &str,
    cursor: Option<String>,
    size: usize,
    budget: usize,
    key: impl Fn(&T) -> &str,
    bytes: impl Fn(&T) -> usize,
) -> Result<(&'a [T], Option<String>), McpError> {
    let start = start_of(items, kind, cursor, &key)?;
    Ok(page_from(items, kind, start, size, budget, key, bytes))
}

/// Where the page a request names starts: the first item without a cursor,
/// the one after the cursor's key with one, and an invalid-params error for
/// a cursor of another kind or one that does not decode.
fn start_of<T>(
    items: &[T],
    kind: &str,
    cursor: Option<String>,
    key: impl Fn(&T) -> &str,
) -> Result<usize, McpError> {
    match cursor {
        None => Ok(0),
        Some(c) => start_after(items, kind, &c, key)
            .ok_or_else(|| McpError::invalid_params("the cursor is not valid here", None)),
    }
}

/// Where the page after `cursor` starts in `items` (sorted by `key`), if
/// the cursor is one of `kind`'s.
pub(crate) fn start_after<T>(
    items: &[T],
    kind: &str,
    cursor: &str,
    key: impl Fn(&T) -> &str,
) -> Option<usize> {
    let after = uri::after(kind, cursor)?;
    Some(items.partition_point(|item| key(item) <= after.as_str()))
}

/// The page of `items` starting at `start`, and the cursor of the next.
fn page_from<'a, T>(
    items: &'a [T],
    kind: &str,
    start: usize,
    size: usize,
    budget: usize,
    key: impl Fn(&T) -> &str,
    bytes: impl Fn(&T) -> usize,
) -> (&'a [T], Option<String>) {
    let rest = &items[start.min(items.len())..];
    let mut end = 0;
    let mut used = 0;
    while end < rest.len() && end < size.max(1) {
        used += bytes(&rest[end]);
        if end > 0 && used > budget {
            break;
        }
        end += 1;
    }
    let next = (end < rest.len()).then(|| uri::cursor(kind, key(&rest[end - 1])));
    (&rest[..end], next)
}

/// The `skills/list` result for the page of `view` starting at entry
/// `start`: what the handler answers, and what the HTTP fast path
/// (`crate::listing`) serializes once per view, so both send the same.
pub(crate) fn skills_page(view: &View, options: &Options, start: usize) -> ListSkillsResult {
    let (items, next) = page_from(
        &view.entries,
        SKILLS,
        start,
        options.page_size,
        options.page_bytes,
        |e| e.uri.as_str(),
        |e| e.wire_bytes,
    );
    let mut result =
        ListSkillsResult::with_all_items(items.iter().map(|e| e.wire.clone()).collect())
            .with_ttl_ms(options.ttl_ms)
            .with_cache_scope(CacheScope::Private);
    result.next_cursor = next;
    result
}

/// The cursor kind of `prompts/list`.
const PROMPTS: &str = "prompts";
/// Most prompts on one page of `prompts/list`.
const PROMPTS_PAGE: usize = 100;
/// Most bytes (roughly) of one page of `prompts/list` beyond its first
/// prompt: a client shows prompts as a menu, and 550 descriptions in one
/// answer are 222 KB.
const PROMPTS_PAGE_BYTES: usize = 64 << 10;

/// About how many bytes a prompt takes in a `prompts/list` answer.
fn prompt_bytes(prompt: &rmcp::model::Prompt) -> usize {
    let arguments: usize = prompt
        .arguments
        .iter()
        .flatten()
        .map(|a| a.name.len() + a.description.as_ref().map_or(0, String::len) + 40)
        .sum();
    prompt.name.len() + prompt.description.as_ref().map_or(0, String::len) + arguments + 40
}

/// The cursor kind of `skills/list`.
pub(crate) const SKILLS: &str = "skills";

fn cursor_of(request: Option<PaginatedRequestParams>) -> Option<String> {
    request.and_then(|p| p.cursor)
}

fn text_result(text: String) -> Vec<ContentBlock> {
    vec![ContentBlock::text(text)]
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        (*self.config).clone()
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        let result = self.negotiate_initialize(&request)?;
        // A 2025-11-25 session: from now on it hears of changes.
        self.session.start(context.peer.clone(), &self.live);
        Ok(result)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.session.start(context.peer.clone(), &self.live);
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, McpError> {
        let view = self.live.view();
        let start = start_of(&view.entries, SKILLS, cursor_of(request), |e| {
            e.uri.as_str()
        })?;
        Ok(skills_page(&view, self.live.options(), start))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, McpError> {
        let entry = calls::get_skill(&self.live, &request.uri).await?;
        Ok(GetSkillResult::new(entry.wire)
            .with_ttl_ms(self.ttl())
            .with_cache_scope(CacheScope::Private))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let view = self.live.view();
        let size = self.live.options().page_size.saturating_mul(2);
        let (items, next) = page(
            view.resources(),
            "resources",
            cursor_of(request),
            size,
            usize::MAX,
            |r| r.uri.as_str(),
            |_| 0,
        )?;
        let mut result = ListResourcesResult::with_all_items(items.to_vec())
            .with_ttl_ms(self.ttl())
            .with_cache_scope(CacheScope::Private);
        result.next_cursor = next;
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let contents = calls::read(&self.live, &request.uri).await?;
        Ok(ReadResourceResult::new(vec![contents])
            .with_ttl_ms(self.ttl())
            .with_cache_scope(CacheScope::Private)
            .into())
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, McpError> {
        let view = self.live.view();
        let children = view.directory(&request.uri).ok_or_else(|| {
            McpError::invalid_params(format!("{} is not a directory resource", request.uri), None)
        })?;
        let kind = format!("dir {}", request.uri);
        let size = self.live.options().page_size.saturating_mul(2);
        let (items, next) = page(
            children,
            &kind,
            request.cursor,
            size,
            usize::MAX,
            |r| r.uri.as_str(),
            |_| 0,
        )?;
        let mut result = ReadResourceDirectoryResult::with_all_items(items.to_vec());
        result.next_cursor = next;
        Ok(result)
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if self.live.view().file(&request.uri).is_none() {
            return Err(McpError::resource_not_found(
                format!("No resource is served at {}", request.uri),
                None,
            ));
        }
        self.session.subscribe(&request.uri);
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.session.unsubscribe(&request.uri);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = requested.clone();
        if let Some(uris) = &mut accepted.resource_subscriptions {
            let view = self.live.view();
            uris.retain(|u| view.file(u).is_some());
        }
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        sessions::listen(&self.live, context).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let view = self.live.view();
        // Prompts come in rank order, so a cursor names the last prompt of
        // its page rather than a place in a sorted list.
        let start = match cursor_of(request) {
            None => 0,
            Some(cursor) => uri::after(PROMPTS, &cursor)
                .and_then(|name| view.prompt_after(&name))
                .ok_or_else(|| {
                    McpError::invalid_params(
                        "the cursor is not valid here (the prompts changed: list them again)",
                        None,
                    )
                })?,
        };
        let (items, next) = page_from(
            &view.prompts,
            PROMPTS,
            start,
            PROMPTS_PAGE.min(self.live.options().page_size),
            PROMPTS_PAGE_BYTES,
            |p| p.name.as_str(),
            prompt_bytes,
        );
        let mut result = ListPromptsResult::with_all_items(items.to_vec())
            .with_ttl_ms(self.ttl())
            .with_cache_scope(CacheScope::Private);
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let view = self.live.view();
        let Some(prompt) = view.prompts.iter().find(|p| p.name == request.name) else {
            return Err(McpError::invalid_params(
                format!("No prompt named {:?}", request.name),
                None,
            ));
        };
        let description = prompt.description.clone();
        let args = match request.arguments.as_ref().and_then(|a| a.get("arguments")) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::String(text)) => split(text),
            Some(other) => split(&other.to_string()),
        };
        let text = match calls::invoke(
            &self.live,
            request.name,
            args,
            Caller::User,
            session_of(&context),
        )
        .await?
        {
            Ok(text) => text,
            Err(Refusal::Unknown(m) | Refusal::Refused(m)) => {
                return Err(McpError::invalid_params(m, None));
            }
            Err(Refusal::Failed(m)) => return Err(McpError::internal_error(m, None)),
        };
        let mut result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]);
        if let Some(d) = description {
            result = result.with_description(d);
        }
        Ok(result.into())
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let view = self.live.view();
        Ok(ListToolsResult::with_all_items(view.tools.clone())
            .with_ttl_ms(self.ttl())
            .with_cache_scope(CacheScope::Private))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.live.view().tool(name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let arguments = request.arguments.unwrap_or_default();
        if request.name == SEARCH {
            let view = self.live.view();
            let answer = tools::search_call(
                &view.catalog,
                &view.scores,
                view.render.entry_cap,
                &arguments,
            );
            return Ok(match answer {
                Ok(text) => CallToolResult::success(text_result(text)),
                Err(why) => CallToolResult::error(text_result(why)),
            }
            .into());
        }
        if request.name != SKILL {
            return Err(McpError::invalid_params(
                format!(
                    "No tool named {:?}; the tools are {SKILL:?} and {SEARCH:?}",
                    skillhost::text::escaped(&request.name)
                ),
                None,
            ));
        }
        let Some(name) = arguments.get("name").and_then(Value::as_str) else {
            return Ok(CallToolResult::error(text_result(
                "`name` is required: the skill to run".to_string(),
            ))
            .into());
        };
        let args = match arguments.get("arguments") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::String(text)) => split(text),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect(),
            Some(other) => split(&other.to_string()),
        };
        let outcome = calls::invoke(
            &self.live,
            name.to_string(),
            args,
            Caller::Model,
            session_of(&context),
        )
        .await?;
        Ok(match outcome {
            Ok(text) => CallToolResult::success(text_result(text)),
            // The model reads why, and what it may call instead.
            Err(Refusal::Unknown(m) | Refusal::Refused(m) | Refusal::Failed(m)) => {
                CallToolResult::error(text_result(m))
            }
        }
        .into())
    }
}

/// The MCP session a request belongs to, as its `Mcp-Session-Id` header
/// names it (Streamable HTTP); empty on stdio and for stateless requests.
fn session_of(context: &RequestContext<RoleServer>) -> String {
    context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.headers.get("mcp-session-id"))
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_never_split_an_item_and_resume_after_the_last_key() {
        let items = ["k0", "k1", "k2", "k3", "k4", "k5", "k6"];
        fn key<'a>(s: &'a &str) -> &'a str {
            s
        }
        let (first, next) = page(&items, "t", None, 3, usize::MAX, key, |_| 0).unwrap();
        assert_eq!(first, &items[..3]);
        let (second, next) = page(&items, "t", next, 3, usize::MAX, key, |_| 0).unwrap();
        assert_eq!(second, &items[3..6]);
        let (last, next) = page(&items, "t", next, 3, usize::MAX, key, |_| 0).unwrap();
        assert_eq!(last, &items[6..]);
        assert_eq!(next, None);
        // A byte budget shortens pages but never below one item.
        let (small, _) = page(&items, "t", None, 3, 5, key, |_| 10).unwrap();
        assert_eq!(small.len(), 1);
        assert!(
            page(
                &items,
                "other",
                Some(uri::cursor("t", "k1")),
                3,
                9,
                key,
                |_| 0
            )
            .is_err()
        );
    }
}
