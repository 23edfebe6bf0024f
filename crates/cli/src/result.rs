//! A contract result as an MCP tool result: the structured content, and a text copy for
//! clients that read only text. Used by the MCP server and by the framing's own refusals.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

/// Above this many bytes of JSON, the text copy of a result leaves out long strings.
const TEXT_COPY_LIMIT: usize = 16 << 10;
/// Strings longer than this are left out of a large result's text copy.
const LONG_STRING: usize = 512;

/// A contract object as an MCP tool result.
pub(crate) fn tool_result(result: Value) -> CallToolResult {
    if result.get("ok").and_then(Value::as_bool) == Some(true) {
        let text = text_copy(&result);
        let mut answer = CallToolResult::success(vec![ContentBlock::text(text)]);
        answer.structured_content = Some(result);
        return answer;
    }
    let message = result
        .get("error")
        .and_then(|e| {
            let kind = e.get("kind").and_then(Value::as_str)?;
            let message = e.get("message").and_then(Value::as_str)?;
            Some(format!("{kind}: {message}"))
        })
        .unwrap_or_else(|| result.to_string());
    let mut answer = CallToolResult::error(vec![ContentBlock::text(message)]);
    answer.structured_content = Some(result);
    answer
}

/// The JSON text of a result; for a large one, long strings are replaced by a note pointing
/// at the structured content, so the payload travels once.
fn text_copy(result: &Value) -> String {
    let full = result.to_string();
    if full.len() <= TEXT_COPY_LIMIT {
        return full;
    }
    let mut trimmed = result.clone();
    elide(&mut trimmed, "");
    trimmed.to_string()
}

fn elide(value: &mut Value, at: &str) {
    match value {
        Value::String(text) if text.len() > LONG_STRING => {
            *text = format!("[{} bytes, sent once: see structuredContent{at}]", text.len());
        }
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                elide(child, &format!("{at}.{key}"));
            }
        }
        Value::Array(items) => {
            for (idx, child) in items.iter_mut().enumerate() {
                elide(child, &format!("{at}[{idx}]"));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn large_results_travel_once() {
        let big = "x".repeat(100_000);
        let result = tool_result(json!({"ok": true, "content": big, "sha256": "abc"}));
        let text = match result.content.first().and_then(|c| c.as_text()) {
            Some(text) => text.text.clone(),
            None => String::new(),
        };
        assert!(text.len() < 1_000, "text copy is {} bytes", text.len());
        assert!(text.contains("structuredContent.content"));
        assert_eq!(result.structured_content.as_ref().and_then(|v| v["content"].as_str()).map(str::len), Some(100_000));
    }

    #[test]
    fn refusals_are_tool_errors() {
        let result = tool_result(json!({"ok": false, "error": {"kind": "ambiguous", "message": "2 places"}}));
        assert_eq!(result.is_error, Some(true));
        assert_eq!(result.structured_content.as_ref().map(|v| v["error"]["kind"].clone()), Some(json!("ambiguous")));
    }
}
