// The Python editor (CodeMirror 6) and its per-problem draft in localStorage.
import { basicSetup } from "codemirror";
import { python } from "@codemirror/lang-python";
import { EditorState, Prec, StateEffect, StateField } from "@codemirror/state";
import { Decoration, EditorView, keymap } from "@codemirror/view";
import { indentWithTab } from "@codemirror/commands";
import { HighlightStyle, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { tags } from "@lezer/highlight";

const SAVE_DELAY_MS = 300; // coalesce keystrokes; a reload within this window still flushes on pagehide

// The line a load error points at, highlighted until the learner edits the code.
const setErrorLine = StateEffect.define();
const errorLine = StateField.define({
  create: () => Decoration.none,
  update(decorations, transaction) {
    if (transaction.docChanged) decorations = Decoration.none;
    for (const effect of transaction.effects) {
      if (!effect.is(setErrorLine)) continue;
      const line = transaction.state.doc.line(effect.value);
      decorations = Decoration.set([Decoration.line({ class: "cm-errorLine" }).range(line.from)]);
    }
    return decorations;
  },
  provide: (field) => EditorView.decorations.from(field),
});

// Token colours from CSS custom properties (styles.css), so the editor follows the light and dark themes and
// every colour meets 4.5:1 in both (CodeMirror's default string colour is 3.84:1 on white).
const codeColours = HighlightStyle.define([
  { tag: [tags.keyword, tags.controlKeyword, tags.operatorKeyword, tags.definitionKeyword, tags.moduleKeyword], color: "var(--code-keyword)" },
  { tag: [tags.string, tags.special(tags.string), tags.regexp, tags.escape], color: "var(--code-string)" },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: "var(--code-number)" },
  { tag: [tags.comment, tags.lineComment, tags.blockComment, tags.docComment], color: "var(--code-comment)", fontStyle: "italic" },
  { tag: [tags.function(tags.definition(tags.variableName)), tags.definition(tags.className)], color: "var(--code-function)" },
  { tag: [tags.standard(tags.variableName), tags.self, tags.className], color: "var(--code-builtin)" },
  { tag: [tags.operator, tags.punctuation, tags.bracket], color: "var(--code-operator)" },
  { tag: tags.invalid, color: "var(--fail)" },
]);

function clampLine(state, lineNumber) {
  return Math.min(Math.max(1, lineNumber), state.doc.lines);
}

/**
 * Mounts the editor. `onRun` is called on Ctrl/Cmd+Enter. Returns a small handle; the same handle is
 * reachable as `mount.paperlabEditor` (browser tests read the document through it).
 */
export function createEditor(mount, { code, labelledBy, describedBy, onRun, onChange }) {
  const view = new EditorView({
    parent: mount,
    state: EditorState.create({
      doc: code,
      extensions: [
        // Above the default keymap, which binds Mod-Enter to "insert blank line".
        Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => (onRun(), true), preventDefault: true }])),
        basicSetup, // line numbers, history, bracket matching + closing, search (Mod-f), folding, autocompletion
        // Tab indents. CodeMirror's escape hatch keeps the keyboard trap-free: Esc, then Tab moves focus on.
        keymap.of([indentWithTab]),
        indentUnit.of("    "),
        python(),
        syntaxHighlighting(codeColours),
        errorLine,
        EditorView.contentAttributes.of({
          "aria-labelledby": labelledBy,
          "aria-describedby": describedBy,
          "aria-multiline": "true",
          // Explicit, so accessibility checkers see the scrolling box's focusable content (axe's
          // scrollable-region-focusable); contenteditable is in the tab order either way.
          tabindex: "0",
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange?.(update.state.doc.toString());
        }),
      ],
    }),
  });

  const handle = {
    view,
    getCode: () => view.state.doc.toString(),
    setCode(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    /** Puts the cursor on a 1-based line, selects it and scrolls it into view (load errors). */
    goToLine(lineNumber) {
      const line = view.state.doc.line(clampLine(view.state, lineNumber));
      view.dispatch({ selection: { anchor: line.from, head: line.to }, scrollIntoView: true });
      view.focus();
    },
    /** Highlights a line (a load error) and scrolls it into view, without taking the focus. */
    markErrorLine(lineNumber) {
      const number = clampLine(view.state, lineNumber);
      const from = view.state.doc.line(number).from;
      view.dispatch({ effects: [setErrorLine.of(number), EditorView.scrollIntoView(from, { y: "center" })] });
    },
    focus: () => view.focus(),
  };
  mount.paperlabEditor = handle;
  return handle;
}

/**
 * The learner's unsent edits for one problem, kept in localStorage as {code, savedAt, base}: `base` is the
 * server's code the draft started from, so a draft is restored only when it is newer than the server's code.
 */
export class Draft {
  constructor(slug) {
    this.key = `paperlab:draft:${slug}`;
    this.timer = null;
    this.pending = null;
  }

  read() {
    try {
      const value = JSON.parse(localStorage.getItem(this.key) ?? "null");
      return value && typeof value.code === "string" ? value : null;
    } catch {
      return null; // storage disabled or a corrupt entry: behave as if there were no draft
    }
  }

  /**
   * Which code the editor should open with: the draft when it was edited on top of the code the server
   * now has (so it is newer), else the server's code. `serverSavedAt` (ms) settles the case where the
   * server's code changed since (another tab or device submitted): the later of the two wins.
   */
  choose(serverCode, serverSavedAt = null) {
    const draft = this.read();
    if (!draft || draft.code === serverCode) return { code: serverCode, restored: null };
    const newer = draft.base === serverCode || (serverSavedAt !== null && draft.savedAt > serverSavedAt);
    return newer ? { code: draft.code, restored: draft } : { code: serverCode, restored: null };
  }

  saveSoon(code, base) {
    this.pending = { code, base };
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), SAVE_DELAY_MS);
  }

  flush() {
    clearTimeout(this.timer);
    if (!this.pending) return false;
    const { code, base } = this.pending;
    this.pending = null;
    try {
      localStorage.setItem(this.key, JSON.stringify({ code, base, savedAt: Date.now() }));
      return true;
    } catch {
      return false; // quota or privacy mode; the code is still in the editor
    }
  }

  /** After a submission the server holds this code: it becomes the base of any further draft. */
  rebase(code) {
    this.pending = { code, base: code };
    this.flush();
  }
}
