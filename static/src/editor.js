// The Python editor (CodeMirror 6) and its per-problem draft in localStorage.
import { basicSetup } from "codemirror";
import { python } from "@codemirror/lang-python";
import { Compartment, EditorState, Prec, RangeSet, StateEffect, StateField } from "@codemirror/state";
import { Decoration, EditorView, GutterMarker, gutter, keymap } from "@codemirror/view";
import { indentLess, indentMore } from "@codemirror/commands";
import { HighlightStyle, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { tags } from "@lezer/highlight";
import { changedLines } from "./line-diff.js";

const SAVE_DELAY_MS = 300; // coalesce keystrokes; a reload within this window still flushes on pagehide
const DIFF_DELAY_MS = 150; // the "edited since the last run" marks follow typing a moment later
const WRAP_KEY = "paperlab:wrap";

// Lines changed since the last run, marked in a gutter of their own (a bar beside the line numbers).
const setEditMarks = StateEffect.define();
class EditedMarker extends GutterMarker {
  constructor(kind) {
    super();
    this.kind = kind;
  }
  eq(other) {
    return other.kind === this.kind;
  }
  toDOM() {
    const mark = document.createElement("span");
    mark.className = `cm-editMark cm-editMark--${this.kind}`;
    mark.title = this.kind === "changed" ? "Edited since your last run" : "Lines removed here since your last run";
    return mark;
  }
}
const changedMarker = new EditedMarker("changed");
const removedMarker = new EditedMarker("removed");
const editMarks = StateField.define({
  create: () => RangeSet.empty,
  update(marks, transaction) {
    marks = marks.map(transaction.changes);
    for (const effect of transaction.effects) if (effect.is(setEditMarks)) marks = effect.value;
    return marks;
  },
});
const editGutter = gutter({ class: "cm-editGutter", markers: (view) => view.state.field(editMarks) });

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
export function createEditor(mount, { code, labelledBy, describedBy, onRun, onChange, modeStatus, editStatus,
  wrapToggle, base = code }) {
  // Tab moves the focus on, as everywhere else on the page, until the learner enters the editor on purpose:
  // Enter, a click, or typing. Then Tab indents, until Esc or leaving. The mode is shown in the editor's bar.
  let editing = false;
  let baseCode = base;
  let diffTimer = null;
  const wrapping = new Compartment();
  const setEditing = (value) => {
    editing = value;
    showMode();
  };
  const whenEditing = (command) => (target) => (editing ? command(target) : false);
  const view = new EditorView({
    parent: mount,
    state: EditorState.create({
      doc: code,
      extensions: [
        // Above the default keymap, which binds Mod-Enter to "insert blank line".
        Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => (onRun(), true), preventDefault: true }])),
        basicSetup, // line numbers, history, bracket matching + closing, search (Mod-f), folding, autocompletion
        // Tab indents only while editing; otherwise no binding takes it and the browser moves the focus on.
        keymap.of([{ key: "Tab", run: whenEditing(indentMore), shift: whenEditing(indentLess) }]),
        // Below the completion popup's and the search panel's own Enter and Esc (they keep working).
        Prec.high(keymap.of([
          { key: "Enter", run: () => (editing ? false : (setEditing(true), true)) },
          { key: "Escape", run: () => (editing ? (setEditing(false), true) : false) },
        ])),
        EditorView.domEventHandlers({
          mousedown: () => {
            setEditing(true);
            return false;
          },
          focus: () => {
            showMode();
            return false;
          },
          blur: () => {
            editing = false;
            showMode();
            return false;
          },
        }),
        wrapping.of(readWrap() ? EditorView.lineWrapping : []),
        editMarks,
        editGutter,
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
          if (!update.docChanged) return;
          // Typing is entering the editor too (paste, completion, drop: anything the learner did in it).
          if (!editing && update.transactions.some((t) => t.isUserEvent("input") || t.isUserEvent("delete")
            || t.isUserEvent("move"))) setEditing(true);
          onChange?.(update.state.doc.toString());
          scheduleDiff();
        }),
      ],
    }),
  });

  function showMode() {
    if (!modeStatus) return;
    const focused = view.hasFocus;
    const mode = !focused ? "idle" : editing ? "edit" : "navigate";
    if (modeStatus.dataset.mode === mode) return;
    modeStatus.dataset.mode = mode;
    modeStatus.textContent = {
      idle: "",
      navigate: "Not editing: Tab moves on, Enter starts editing",
      edit: "Editing: Tab indents, Esc stops",
    }[mode];
    modeStatus.title = modeStatus.textContent; // the whole sentence on hover where the bar cuts it short
  }

  function scheduleDiff() {
    clearTimeout(diffTimer);
    diffTimer = setTimeout(showEdits, DIFF_DELAY_MS);
  }

  // Marks the lines changed since the last run, and says in the editor's bar how many.
  function showEdits() {
    clearTimeout(diffTimer);
    const doc = view.state.doc;
    const { changed, removedBefore } = changedLines(baseCode, doc.toString());
    const marks = [];
    for (let number = 1; number <= doc.lines; number += 1) {
      if (changed.has(number)) marks.push(changedMarker.range(doc.line(number).from));
      else if (removedBefore.has(number) && !changed.has(number - 1)) marks.push(removedMarker.range(doc.line(number).from));
    }
    if (removedBefore.has(doc.lines + 1) && !changed.has(doc.lines)) marks.push(removedMarker.range(doc.line(doc.lines).from));
    view.dispatch({ effects: setEditMarks.of(RangeSet.of(marks, true)) });
    if (!editStatus) return;
    const count = changed.size + [...removedBefore].filter((n) => !changed.has(n - 1)).length;
    editStatus.dataset.edited = String(count > 0);
    editStatus.textContent = count ? `Edited since your last run (${count} ${count === 1 ? "place" : "places"})` : "";
  }

  if (wrapToggle) {
    const showWrap = (on) => wrapToggle.setAttribute("aria-pressed", String(on));
    wrapToggle.hidden = false;
    showWrap(readWrap());
    wrapToggle.addEventListener("click", () => {
      const on = wrapToggle.getAttribute("aria-pressed") !== "true";
      view.dispatch({ effects: wrapping.reconfigure(on ? EditorView.lineWrapping : []) });
      showWrap(on);
      try {
        localStorage.setItem(WRAP_KEY, on ? "on" : "off");
      } catch {
        // storage disabled: the choice lasts as long as the page
      }
    });
  }
  showEdits();

  const handle = {
    view,
    isEditing: () => editing,
    /** The code the "edited since the last run" marks compare with: the code just submitted. */
    setBase(code) {
      baseCode = code;
      showEdits();
    },
    getCode: () => view.state.doc.toString(),
    setCode(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    /** Puts the cursor on a 1-based line, selects it and scrolls it into view (load errors). */
    goToLine(lineNumber) {
      const line = view.state.doc.line(clampLine(view.state, lineNumber));
      view.dispatch({ selection: { anchor: line.from, head: line.to }, scrollIntoView: true });
      view.focus();
      setEditing(true); // the learner asked to go there to fix it
    },
    /** Highlights a line (a load error) and scrolls it into view, without taking the focus. */
    markErrorLine(lineNumber) {
      const number = clampLine(view.state, lineNumber);
      const from = view.state.doc.line(number).from;
      view.dispatch({ effects: [setErrorLine.of(number), EditorView.scrollIntoView(from, { y: "center" })] });
    },
    focus: () => {
      view.focus();
      setEditing(true);
    },
  };
  mount.paperlabEditor = handle;
  return handle;
}

/** Soft wrap: on unless the learner turned it off (long lines are then wrapped, never cut off). */
function readWrap() {
  try {
    return localStorage.getItem(WRAP_KEY) !== "off";
  } catch {
    return true;
  }
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
