//! A server's sign-in challenge inside an error from rmcp: the `WWW-Authenticate` of the 401
//! (no or expired sign-in) or 403 (`insufficient_scope`: the sign-in lacks a scope this request
//! needs) that a remote server answered to any request, not only to the handshake.

use rmcp::service::ServiceError;
use rmcp::transport::streamable_http_client::{AuthRequiredError, InsufficientScopeError};

/// The challenge of the 401 or 403 behind `error`, when that is why it failed.
pub(crate) fn of(error: &ServiceError) -> Option<String> {
    let ServiceError::TransportSend(error) = error else {
        return None;
    };
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error.error.as_ref());
    while let Some(current) = source {
        if let Some(required) = current.downcast_ref::<AuthRequiredError>() {
            return Some(required.www_authenticate_header.clone());
        }
        if let Some(scope) = current.downcast_ref::<InsufficientScopeError>() {
            return Some(scope.www_authenticate_header.clone());
        }
        source = current.source();
    }
    None
}
