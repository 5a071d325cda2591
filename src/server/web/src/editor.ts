// The spec editor: CodeMirror 6 with C++ support, line numbers, bracket matching, undo history and
// search (basicSetup), diagnostics from the server on their lines.
import { EditorView, basicSetup } from 'codemirror';
import { cpp } from '@codemirror/lang-cpp';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { setDiagnostics, type Diagnostic as LintDiagnostic } from '@codemirror/lint';
import { EditorSelection, Prec } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import type { Diagnostic } from './types';

// Token colours from the page's theme variables, so one style serves light and dark.
const highlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.controlKeyword, tags.modifier, tags.operatorKeyword], color: 'var(--syn-keyword)' },
  { tag: [tags.typeName, tags.className, tags.namespace], color: 'var(--syn-type)' },
  { tag: [tags.string, tags.character], color: 'var(--syn-string)' },
  { tag: [tags.number, tags.bool, tags.null], color: 'var(--syn-number)' },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: 'var(--syn-comment)', fontStyle: 'italic' },
  { tag: [tags.processingInstruction, tags.macroName], color: 'var(--syn-macro)' },
  { tag: [tags.function(tags.variableName), tags.function(tags.propertyName)], color: 'var(--syn-function)' },
]);

export interface EditorHandlers {
  onRun: () => void; // Ctrl/Cmd+Enter
  onChange: (text: string) => void;
  onCursorLine: (line: number) => void; // 1-based
}

export class SpecEditor {
  readonly view: EditorView;
  private lastLine = 0;

  constructor(parent: HTMLElement, text: string, handlers: EditorHandlers) {
    this.view = new EditorView({
      parent,
      doc: text,
      extensions: [
        // Above basicSetup's keymap, where Mod-Enter inserts a blank line.
        Prec.highest(keymap.of([{ key: 'Mod-Enter', run: () => (handlers.onRun(), true) }])),
        basicSetup,
        cpp(),
        syntaxHighlighting(highlight),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) handlers.onChange(update.state.doc.toString());
          if (update.docChanged || update.selectionSet) {
            const line = update.state.doc.lineAt(update.state.selection.main.head).number;
            if (line !== this.lastLine) {
              this.lastLine = line;
              handlers.onCursorLine(line);
            }
          }
        }),
      ],
    });
  }

  get text(): string {
    return this.view.state.doc.toString();
  }

  // Replaces the whole text as one undoable change.
  set text(value: string) {
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: value } });
  }

  cursorLine(): number {
    return this.view.state.doc.lineAt(this.view.state.selection.main.head).number;
  }

  showDiagnostics(diagnostics: Diagnostic[]): void {
    const doc = this.view.state.doc;
    const marks: LintDiagnostic[] = [];
    for (const d of diagnostics) {
      if (d.line < 1 || d.line > doc.lines) continue;
      const line = doc.line(d.line);
      // A column marks from there to the end of the word; a line alone marks the whole line.
      const from = d.column > 0 ? Math.min(line.from + d.column - 1, line.to) : line.from;
      let to = line.to;
      if (d.column > 0) {
        const word = /^[\w:.]+/.exec(doc.sliceString(from, line.to));
        to = word ? from + word[0].length : Math.min(from + 1, line.to);
      }
      marks.push({ from, to: Math.max(to, from), severity: d.severity, message: d.message });
    }
    this.view.dispatch(setDiagnostics(this.view.state, marks));
  }

  clearDiagnostics(): void {
    this.view.dispatch(setDiagnostics(this.view.state, []));
  }

  // Puts the cursor at the start of `line` (1-based), scrolls it into view, focuses the editor.
  goToLine(line: number): void {
    const doc = this.view.state.doc;
    const target = doc.line(Math.max(1, Math.min(line, doc.lines)));
    this.view.dispatch({
      selection: EditorSelection.cursor(target.from),
      effects: EditorView.scrollIntoView(target.from, { y: 'center' }),
    });
    this.view.focus();
  }
}
