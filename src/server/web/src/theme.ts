// Light and dark: the system's preference until the user picks one with the toggle (remembered).
const KEY = 'nndna.theme';
type Theme = 'light' | 'dark';

function systemTheme(): Theme {
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

function apply(theme: Theme, button: HTMLButtonElement): void {
  document.documentElement.dataset.theme = theme;
  button.textContent = theme === 'dark' ? 'Light theme' : 'Dark theme';
  button.setAttribute('aria-pressed', String(theme === 'dark'));
}

export function setUpTheme(button: HTMLButtonElement): void {
  const saved = localStorage.getItem(KEY);
  let theme: Theme = saved === 'light' || saved === 'dark' ? saved : systemTheme();
  apply(theme, button);
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
    if (!localStorage.getItem(KEY)) apply((theme = systemTheme()), button);
  });
  button.addEventListener('click', () => {
    theme = theme === 'dark' ? 'light' : 'dark';
    localStorage.setItem(KEY, theme);
    apply(theme, button);
  });
}
