//! The HTTP routes (docs/BRIDGE.md, "Bridge API") and the layers around them: trace ids, request logging,
//! access checks, CORS and the body limit.

mod calls;
mod elicitation;
mod execute;
mod health;
mod history;
mod prompts;
mod resources;
mod servers;
mod sign_in;
mod tools;
mod views;

use axum::Router;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{get, post, put};
use tower_http::limit::RequestBodyLimitLayer;

use crate::error::BridgeError;
use crate::security::{self, BODY_LIMIT};
use crate::state::AppState;
use crate::trace;

/// The application: routes plus layers (outermost first: trace id and the request log, CORS, access, limit).
pub(crate) fn router(state: AppState) -> Router {
    let security = state.security.clone();
    Router::new()
        .route("/health", get(health::health))
        .route("/tools", get(tools::list))
        .route("/tool-detail", get(tools::detail))
        .route("/execute", post(execute::execute))
        .route("/calls/{call_id}", get(calls::fetch).delete(calls::cancel))
        .route("/calls/{call_id}/elicitation", post(elicitation::answer))
        .route("/prompts", get(prompts::list))
        .route("/prompts/get", post(prompts::get))
        .route("/complete", post(prompts::complete))
        .route("/resources", get(resources::list))
        .route("/resource-templates", get(resources::templates))
        .route("/resources/read", post(resources::read))
        .route("/views", post(views::keep))
        .route("/views/{id}", get(views::serve))
        .route("/reset-history", post(history::reset))
        .route("/history", get(history::show))
        .route("/servers", get(servers::list))
        .route("/servers/import", post(servers::import))
        .route(
            "/servers/{name}",
            put(servers::put)
                .patch(servers::set_enabled)
                .delete(servers::delete),
        )
        .route("/servers/{name}/restart", post(servers::restart))
        .route("/servers/{name}/sign-in", post(sign_in::sign_in))
        .route("/servers/{name}/sign-out", post(sign_in::sign_out))
        .route(crate::oauth::CALLBACK_PATH, get(sign_in::callback))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
        .layer(RequestBodyLimitLayer::new(BODY_LIMIT))
        .layer(from_fn_with_state(security.clone(), security::guard))
        // Outside the guard, so that its refusals (401, 403 for a bad Host) also carry the
        // CORS headers an extension origin needs to read them; web origins never get any.
        .layer(security::cors())
        // Preflights are answered by the CORS layer, so they are checked before it.
        .layer(from_fn_with_state(security, security::preflight_guard))
        .layer(from_fn(trace::assign))
}

async fn not_found() -> BridgeError {
    BridgeError::RouteNotFound
}

async fn method_not_allowed() -> BridgeError {
    BridgeError::MethodNotAllowed
}
