"""HTTP and WebSocket routes. They translate requests; they decide nothing."""
