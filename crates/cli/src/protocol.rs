//! What the MCP server and its stdio transport both know of the protocol: the revisions
//! served and the 2025-11-25 tasks the transport hands on.

use rmcp::model::ProtocolVersion;

/// The protocol revisions served: 2026-07-28 (no handshake, metadata on each request) and the
/// handshake revisions before it.
pub(crate) const SUPPORTED_VERSIONS: &[ProtocolVersion] = ProtocolVersion::KNOWN_VERSIONS;

/// The tools that may run as a task (extension `io.modelcontextprotocol/tasks`) for a client
/// that declares it: the walks, and `apply_patch`.
pub(crate) const TASK_TOOLS: &[&str] = &["apply_patch", "search_files", "search_code", "glob", "tree"];

/// The method prefix a 2025-11-25 session's task requests are handed on under: rmcp models only
/// the 2026-07-28 tasks extension, so the stdio transport renames that revision's task-augmented
/// `tools/call`, `tasks/get`, `tasks/result` and `tasks/cancel` for `Server::tasks_2025` (`crate::mcp`).
pub(crate) const TASKS_2025_METHODS: &str = "editkit/2025-11-25/";

/// Marks a request of a session that initialised protocol 2025-11-25 declaring
/// `capabilities.tasks` (the revision's experimental tasks, which the TypeScript SDK 1.x
/// speaks): its task-augmented calls of the [`TASK_TOOLS`] run as tasks, and its big texts are
/// linked, since such a client reads the newer result shapes. Set by the stdio transport.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tasks2025;
