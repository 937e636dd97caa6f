// Starts Swagger UI on /docs from the copy bundled with the app (no CDN, no inline script).
window.addEventListener("DOMContentLoaded", () => {
  window.SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true });
});
