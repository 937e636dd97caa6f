// /continue: the "Copy link" button beside the new link (the field stays selectable without JavaScript).
export function initDeviceLinks() {
  const field = document.getElementById("device-link");
  const button = document.getElementById("copy-device-link");
  const status = document.getElementById("copy-status");
  if (!field || !button) return;
  button.hidden = false;
  button.addEventListener("click", async () => {
    status.textContent = "";
    try {
      await navigator.clipboard.writeText(field.value);
      status.textContent = "Copied. Paste it into the other device's browser within 30 minutes.";
    } catch {
      // No clipboard access (an insecure origin, a denied permission): select it for the learner to copy.
      field.focus();
      field.select();
      status.textContent = "Press Ctrl+C (⌘+C on a Mac) to copy the selected link.";
    }
  });
}
