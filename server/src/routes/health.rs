//! `GET /health`: is the bridge up (open without a token, for the extension's status light).

use axum::Json;
use serde_json::{Value, json};

pub async fn health() -> Json<Value> {
    let timestamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs_f64())
        .unwrap_or_default();
    Json(json!({
        "status": "ok",
        "timestamp": timestamp,
        "version": crate::VERSION,
    }))
}
