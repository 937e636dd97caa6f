// "Load this code into the editor" on an attempt's page leads here as /problems/SLUG?restore=ID: the attempt's
// code replaces the editor's, after a question when the editor holds a draft that was never run and differs.
import { fetchSubmission } from "./run.js";
import { formatTime } from "./times.js";

export async function restoreAttemptIfAsked({ editor, slug, serverCode, saveStatus, showCode }) {
  const url = new URL(location.href);
  const id = url.searchParams.get("restore");
  if (!id) return false;
  url.searchParams.delete("restore");
  history.replaceState(history.state, "", url.pathname + url.search + url.hash); // a reload restores nothing
  const attempt = await fetchSubmission(id);
  if (!attempt || attempt.problem !== slug || typeof attempt.code !== "string") {
    saveStatus.textContent = "That attempt could not be loaded: it is not one of yours on this problem.";
    return false;
  }
  showCode();
  const current = editor.getCode();
  const when = formatTime(attempt.created_at);
  if (current === attempt.code) {
    saveStatus.textContent = `The editor already holds your attempt from ${when}.`;
    return true;
  }
  const unsavedDraft = current !== serverCode;
  if (unsavedDraft && !confirm(`Replace the code in the editor with your attempt from ${when}? `
    + "Your current draft has not been run and will be lost.")) {
    saveStatus.textContent = "Kept your draft; the attempt's code was not loaded.";
    return false;
  }
  editor.setCode(attempt.code);
  saveStatus.textContent = `Loaded your attempt from ${when}. Run the tests to grade it again.`;
  return true;
}
