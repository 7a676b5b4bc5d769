//! Sending a request until a usable response arrives: retryable statuses
//! (429, 500, 502, 503, 504, 529) and connections that fail before any
//! body byte are tried again after a backoff or the server's
//! `Retry-After`; nothing was handed to the caller yet, so a retry is
//! invisible except for the notice saying why the answer is late.

use std::time::Duration;

use serde_json::Value;

use super::body::{ByteStream, ReadStop};
use super::retry::{RetryWait, backoff, parse_retry_after, wait_before_retry, whole_seconds};
use super::{Call, describe, error_message, is_retryable_send_error};
use crate::http::is_retryable_status;
use crate::provider::ProviderError;

/// The most of an error body read for its message.
const MAX_ERROR_BODY: usize = 64 * 1024;
/// The most of a JSON document (model lists) read.
const MAX_JSON_BODY: usize = 16 * 1024 * 1024;

enum Method {
    Get,
    Post(Vec<u8>),
}

/// An attempt that failed in a way another attempt may fix.
enum Failure {
    Status {
        status: u16,
        retry_after: Option<String>,
        /// What is reported if no retry happens.
        error: ProviderError,
    },
    /// No response, or the connection broke before the first body byte.
    Broken(String),
}

impl Call<'_> {
    /// POST `body` as JSON and return the response body as a stream, once
    /// a 2xx status and the first body bytes arrived (after retries).
    pub async fn post_stream(
        &mut self,
        url: &str,
        headers: &[(&'static str, String)],
        body: &Value,
    ) -> Result<ByteStream, ProviderError> {
        let bytes = serde_json::to_vec(body).map_err(|e| {
            let provider = self.http().provider();
            ProviderError::Config(format!("{provider}: cannot encode the request: {e}"))
        })?;
        let mut all_headers = vec![
            ("content-type", "application/json".to_string()),
            ("accept", "text/event-stream".to_string()),
        ];
        all_headers.extend_from_slice(headers);
        self.open(&Method::Post(bytes), url, &all_headers).await
    }

    /// GET a JSON document (model lists).
    pub async fn get_json(
        &mut self,
        url: &str,
        headers: &[(&'static str, String)],
    ) -> Result<Value, ProviderError> {
        let mut all_headers = vec![("accept", "application/json".to_string())];
        all_headers.extend_from_slice(headers);
        let mut stream = self.open(&Method::Get, url, &all_headers).await?;
        let mut body = Vec::new();
        while let Some(chunk) = stream.next_chunk(self).await? {
            self.data_arrived();
            body.extend_from_slice(&chunk);
            if body.len() > MAX_JSON_BODY {
                return Err(self.http().malformed(format!("{url}: larger than 16 MiB")));
            }
        }
        serde_json::from_slice(&body).map_err(|e| self.http().malformed(format!("{url}: {e}")))
    }

    async fn open(
        &mut self,
        method: &Method,
        url: &str,
        headers: &[(&'static str, String)],
    ) -> Result<ByteStream, ProviderError> {
        let mut attempt = 0;
        loop {
            if self.is_cancelled() {
                return Err(ProviderError::Cancelled);
            }
            self.data_arrived();
            let failure = match self.attempt(method, url, headers).await? {
                Ok(stream) => return Ok(stream),
                Err(failure) => failure,
            };
            let (delay, notice) = self.plan_retry(attempt, failure)?;
            self.pause(delay, &notice).await?;
            attempt += 1;
        }
    }

    /// One request: the body stream, a failure worth retrying, or a final
    /// error.
    async fn attempt(
        &mut self,
        method: &Method,
        url: &str,
        headers: &[(&'static str, String)],
    ) -> Result<Result<ByteStream, Failure>, ProviderError> {
        let client = self.http().reqwest();
        let mut request = match method {
            Method::Get => client.get(url),
            Method::Post(bytes) => client.post(url).body(bytes.clone()),
        };
        for (name, value) in headers {
            request = request.header(*name, value.as_str());
        }
        let response = match self.wait(request.send()).await? {
            Ok(response) => response,
            Err(error) if is_retryable_send_error(&error) => {
                return Ok(Err(Failure::Broken(at(url, describe(error)))));
            }
            Err(error) => return Err(self.http().transport(at(url, describe(error)))),
        };
        let status = response.status();
        if status.is_success() {
            let mut stream = ByteStream::new(response);
            return match stream.read_first(self).await {
                Ok(()) => Ok(Ok(stream)),
                Err(ReadStop::Broken(message)) => Ok(Err(Failure::Broken(at(url, message)))),
                Err(ReadStop::Stopped(error)) => Err(error),
            };
        }
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let retry_after = header("retry-after");
        let location = header("location");
        let body = self.read_error_body(ByteStream::new(response)).await?;
        let mut message = error_message(&body);
        if let Some(location) = location.filter(|_| status.is_redirection()) {
            message = format!(
                "redirected to {location} (not followed: set the base URL to the final address); {message}"
            );
        }
        let status = status.as_u16();
        let error = ProviderError::Http {
            provider: self.http().provider().to_string(),
            status,
            message: self.http().redact(&message),
        };
        if is_retryable_status(status) {
            Ok(Err(Failure::Status {
                status,
                retry_after,
                error,
            }))
        } else {
            Err(error)
        }
    }

    /// The pause before the next attempt and the notice that explains it,
    /// or the error to report when no retry will happen.
    fn plan_retry(
        &self,
        attempt: u32,
        failure: Failure,
    ) -> Result<(Duration, String), ProviderError> {
        let http = self.http();
        let settings = http.settings();
        let provider = http.provider();
        let retries_left = attempt < settings.max_retries;
        let next = format!("attempt {} of {}", attempt + 2, settings.max_retries + 1);
        match failure {
            Failure::Status {
                status,
                retry_after,
                error,
            } => {
                let server_asked = retry_after.as_deref().and_then(parse_retry_after);
                let delay = match wait_before_retry(
                    attempt,
                    retry_after.as_deref(),
                    settings.max_retry_after,
                ) {
                    RetryWait::TooLong { seconds } => return Err(http.rate_limited(seconds)),
                    RetryWait::After(delay) => delay,
                };
                if !retries_left {
                    return Err(error);
                }
                if !self.fits_before_deadline(delay) {
                    return Err(match server_asked {
                        Some(asked) => http.rate_limited(whole_seconds(asked)),
                        None => error,
                    });
                }
                let seconds = whole_seconds(delay);
                let notice = if status == 429 {
                    format!("rate-limited by {provider}: retrying in {seconds} s")
                } else {
                    format!("{provider} answered {status}: retrying in {seconds} s ({next})")
                };
                Ok((delay, notice))
            }
            Failure::Broken(message) => {
                let delay = backoff(attempt);
                if !retries_left || !self.fits_before_deadline(delay) {
                    return Err(http.transport(message));
                }
                let seconds = whole_seconds(delay);
                let notice = format!("cannot reach {provider}: retrying in {seconds} s ({next})");
                Ok((delay, notice))
            }
        }
    }

    /// An error body, bounded; a body that fails mid-way still yields what
    /// arrived.
    async fn read_error_body(&mut self, mut stream: ByteStream) -> Result<Vec<u8>, ProviderError> {
        let mut body = Vec::new();
        while body.len() < MAX_ERROR_BODY {
            match stream.next_chunk(self).await {
                Ok(Some(bytes)) => body.extend_from_slice(&bytes),
                Ok(None) => break,
                Err(error @ (ProviderError::Cancelled | ProviderError::Deadline { .. })) => {
                    return Err(error);
                }
                Err(_) => break,
            }
        }
        body.truncate(MAX_ERROR_BODY);
        Ok(body)
    }
}

/// `message` prefixed with the URL it is about, credentials removed.
fn at(url: &str, message: String) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) => {
            // Both only fail for URLs that cannot carry credentials anyway.
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            format!("{parsed}: {message}")
        }
        Err(_) => message,
    }
}
