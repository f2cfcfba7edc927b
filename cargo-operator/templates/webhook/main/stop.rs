webhook_stop.cancel();
if let Some(server) = webhook_server {
    server.await.context("the webhook server failed")?;
}
