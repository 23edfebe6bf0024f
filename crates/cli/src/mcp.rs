//! `editkit mcp`: every toolkit tool over MCP on stdio, with rmcp.
//!
//! The tool list comes from `editkit::tools::specs()` at run time, so the `ServerHandler`
//! is written by hand (`list_tools`, `call_tool`, `get_tool`) rather than with rmcp's macros.
//! A successful call answers with the contract object as structured content (it matches the
//! tool's output schema) and its JSON as text, with long strings left out of the text so a
//! large read is not sent twice. A refused call answers `isError: true` with the message as
//! text and `{"ok": false, "error": {kind, message, ...details}}` as structured content. An
//! unknown tool is a JSON-RPC error (invalid params), as the MCP specification asks.
//!
//! The transport is editkit's own ([`crate::framing`]): a message may be up to 65 MiB (64 MiB
//! of tool arguments), and every line gets an answer: a longer one an Invalid Request error
//! naming the limit, one that is not UTF-8 or JSON a Parse error (-32700), one with a key
//! given twice a refusal (`invalid_args` for a key in the arguments).

use std::borrow::Cow;
use std::io;
use std::sync::Arc;

use editkit::Toolkit;
use editkit::tools::ToolSpec;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, JsonObject, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value};

use crate::result::tool_result;
use crate::{EXIT_OK, EXIT_REFUSED};

const INSTRUCTIONS: &str = "editkit's file tools work inside the workspace root(s) only. \
Read a file before editing it: reads return a sha256 and arm a staleness guard, so a write to a file that \
changed since is refused. edit_file needs old_string to match exactly one place (small whitespace drift is \
tolerated and reported as rung and score); on `ambiguous`, add context lines. apply_patch changes every file \
or none. A refused call returns isError with a stable error kind (not_found, ambiguous, stale, \
outside_workspace, invalid_args...) in structured content.";

/// The MCP server: the toolkit and the tools it exposes.
struct Server {
    toolkit: Arc<Toolkit>,
    tools: Arc<Vec<Tool>>,
}

/// Serves MCP on stdio until the client closes the connection.
///
/// # Errors
/// The async runtime cannot start.
pub(crate) fn serve(toolkit: Toolkit, read_only: bool) -> io::Result<u8> {
    let tools: Vec<Tool> =
        editkit::tools::specs().into_iter().filter(|spec| !read_only || spec.in_read_only_set).map(tool).collect();
    let roots: Vec<String> = toolkit.workspaces().iter().map(|w| w.root_path().display().to_string()).collect();
    eprintln!(
        "editkit {} mcp: serving {} tools{} on {} (stdio)",
        env!("CARGO_PKG_VERSION"),
        tools.len(),
        if read_only { " (read-only)" } else { "" },
        roots.join(", ")
    );
    let server = Server { toolkit: Arc::new(toolkit), tools: Arc::new(tools) };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let code = runtime.block_on(async move {
        let input = tokio::io::BufReader::with_capacity(1 << 20, tokio::io::stdin());
        let (transport, writer) = crate::framing::transport(input, tokio::io::stdout());
        let service = match server.serve(transport).await {
            Ok(service) => service,
            Err(err) => {
                eprintln!("editkit mcp: the client did not initialise the session: {err}");
                return EXIT_REFUSED;
            }
        };
        let code = match service.waiting().await {
            Ok(reason) => {
                eprintln!("editkit mcp: session ended ({reason:?})");
                EXIT_OK
            }
            Err(err) => {
                eprintln!("editkit mcp: the session stopped: {err}");
                EXIT_REFUSED
            }
        };
        // The transport is gone: the writer ends once every reply is written.
        let _ = writer.await;
        code
    });
    Ok(code)
}

/// One toolkit spec as an MCP tool: schemas, title and annotations.
fn tool(spec: ToolSpec) -> Tool {
    let result = spec.result_schema();
    let input = match spec.input_schema {
        Value::Object(map) => map,
        _ => object_schema(),
    };
    let output = match result {
        Value::Object(map) => map,
        _ => object_schema(),
    };
    let annotations = ToolAnnotations::with_title(title(spec.name))
        .read_only(spec.read_only)
        .destructive(spec.destructive)
        .idempotent(spec.idempotent)
        .open_world(false);
    Tool::new(spec.name, spec.description, Arc::new(input))
        .with_title(title(spec.name))
        .with_raw_output_schema(Arc::new(output))
        .with_annotations(annotations)
}

fn object_schema() -> JsonObject {
    let mut map = Map::new();
    map.insert("type".into(), Value::String("object".into()));
    map
}

/// `read_file` → `Read file`.
fn title(name: &str) -> String {
    let spaced = name.replace('_', " ");
    let mut chars = spaced.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("editkit", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // The list is one page: no cursor was ever handed out, so any cursor is made up.
        if let Some(cursor) = request.and_then(|params| params.cursor) {
            return Err(ErrorData::invalid_params(
                format!("unknown cursor `{cursor:.80}`: the tool list is one page; call tools/list without a cursor"),
                None,
            ));
        }
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|tool| tool.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name: Cow<'static, str> = request.name;
        if !self.tools.iter().any(|tool| tool.name == name) {
            let available: Vec<&str> = self.tools.iter().map(|tool| tool.name.as_ref()).collect();
            return Err(ErrorData::invalid_params(
                format!("unknown tool `{name}`; available tools: {}", available.join(", ")),
                None,
            ));
        }
        let args = request.arguments.map_or_else(|| Value::Object(Map::new()), Value::Object);
        let toolkit = Arc::clone(&self.toolkit);
        let owned = name.into_owned();
        // Tools do blocking file I/O; keep the runtime free to read the next request.
        let result = tokio::task::spawn_blocking(move || editkit::tools::call(&toolkit, &owned, args))
            .await
            .map_err(|err| ErrorData::internal_error(format!("the tool call stopped: {err}"), None))?;
        Ok(CallToolResponse::from(tool_result(result)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_read_like_words() {
        assert_eq!(title("read_file"), "Read file");
        assert_eq!(title("glob"), "Glob");
    }
}
