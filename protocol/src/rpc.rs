//! JSON-RPC and MCP error codes, with the HTTP status and the error `type` each stands for:
//! the bridge answers with them, the core files a failure by them.

pub const PARSE_ERROR: i32 = -32700;
pub const INVALID_REQUEST: i32 = -32600;
pub const METHOD_NOT_FOUND: i32 = -32601;
pub const INVALID_PARAMS: i32 = -32602;
pub const INTERNAL_ERROR: i32 = -32603;
pub const SERVER_ERROR: i32 = -32000;
pub const TIMEOUT: i32 = -32001;
pub const RESOURCE_NOT_FOUND: i32 = -32002;
pub const TOOL_NOT_FOUND: i32 = -32003;
pub const PROMPT_NOT_FOUND: i32 = -32004;
pub const PERMISSION_DENIED: i32 = -32008;
pub const UNAUTHORIZED: i32 = -32010;
/// LSP's "request cancelled", used by MCP clients for cancelled calls.
pub const REQUEST_CANCELLED: i32 = -32800;

/// The HTTP status the bridge answers a tool's JSON-RPC error with (the MCP HTTP adapters'
/// mapping); 500 for any code not listed.
pub fn http_status(code: i32) -> u16 {
    match code {
        PARSE_ERROR | INVALID_REQUEST => 400,
        METHOD_NOT_FOUND | RESOURCE_NOT_FOUND | TOOL_NOT_FOUND | PROMPT_NOT_FOUND => 404,
        INVALID_PARAMS => 422,
        TIMEOUT => 504,
        PERMISSION_DENIED => 403,
        UNAUTHORIZED => 401,
        _ => 500,
    }
}

/// The error `type` for a tool's JSON-RPC error that names none itself.
pub fn type_name(code: i32) -> &'static str {
    match code {
        INVALID_PARAMS => "InvalidParams",
        METHOD_NOT_FOUND => "MethodNotFound",
        INTERNAL_ERROR => "InternalError",
        PARSE_ERROR => "ParseError",
        INVALID_REQUEST => "InvalidRequest",
        TIMEOUT => "TimeoutError",
        RESOURCE_NOT_FOUND => "ResourceNotFound",
        TOOL_NOT_FOUND => "ToolNotFound",
        PERMISSION_DENIED => "PermissionError",
        UNAUTHORIZED => "Unauthorized",
        _ => "McpError",
    }
}

/// The code whose [`type_name`] is `name`; `None` for any other name.
pub fn code_named(name: &str) -> Option<i32> {
    [
        PARSE_ERROR,
        INVALID_REQUEST,
        METHOD_NOT_FOUND,
        INVALID_PARAMS,
        INTERNAL_ERROR,
        TIMEOUT,
        RESOURCE_NOT_FOUND,
        TOOL_NOT_FOUND,
        PERMISSION_DENIED,
        UNAUTHORIZED,
    ]
    .into_iter()
    .find(|&code| type_name(code) == name)
}

/// Whether the code says the tool (or method) asked for does not exist.
pub fn is_not_found(code: i32) -> bool {
    matches!(code, TOOL_NOT_FOUND | METHOD_NOT_FOUND)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_follow_the_mcp_adapters() {
        let table = [
            (INVALID_PARAMS, 422),
            (TOOL_NOT_FOUND, 404),
            (RESOURCE_NOT_FOUND, 404),
            (PROMPT_NOT_FOUND, 404),
            (METHOD_NOT_FOUND, 404),
            (TIMEOUT, 504),
            (PERMISSION_DENIED, 403),
            (UNAUTHORIZED, 401),
            (PARSE_ERROR, 400),
            (INVALID_REQUEST, 400),
            (INTERNAL_ERROR, 500),
            (SERVER_ERROR, 500),
            (12345, 500),
        ];
        for (code, status) in table {
            assert_eq!(http_status(code), status, "code {code}");
        }
    }

    #[test]
    fn an_unnamed_error_gets_the_codes_name() {
        assert_eq!(type_name(INVALID_PARAMS), "InvalidParams");
        assert_eq!(type_name(PERMISSION_DENIED), "PermissionError");
        assert_eq!(type_name(-1), "McpError");
        assert_eq!(code_named("InvalidParams"), Some(INVALID_PARAMS));
        assert_eq!(code_named("McpError"), None);
    }
}
