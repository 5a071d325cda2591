// The designer's slot ("Describe a model"): the box and its button are part of the page; what
// they call — POST /api/design {description} -> {source}, docs/serve.md — comes with the
// designer (src/designer). Until then the slot stays hidden and nothing calls showDesigner().

export interface DesignerHandlers {
  // Called with the description the user typed; resolves to the spec source it yields.
  design: (description: string) => Promise<string>;
  // Receives the designed source (loaded into the editor and drawn by the caller).
  onSource: (source: string) => void;
}

export function showDesigner(handlers: DesignerHandlers): void {
  const slot = document.getElementById('designer')!;
  const text = document.getElementById('designer-text') as HTMLTextAreaElement;
  const button = document.getElementById('designer-submit') as HTMLButtonElement;
  button.addEventListener('click', async () => {
    if (text.value.trim() === '') return;
    button.disabled = true;
    try {
      handlers.onSource(await handlers.design(text.value));
    } finally {
      button.disabled = false;
    }
  });
  slot.hidden = false;
}
