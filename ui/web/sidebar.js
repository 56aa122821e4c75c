// Presentation mode collapses the app's sidebar with Streamlit's own control, so the header keeps its
// expand button: once each time the mode is turned on (or the page opens in it), never on a rerun,
// so a visitor who opens the sidebar meanwhile keeps it open. Turning the mode off expands the
// sidebar again if this collapsed it (remembered in localStorage, as Streamlit remembers the
// sidebar's state itself). No user data is involved.
const COLLAPSED_BY_US = "token-lens:presentation-collapsed-sidebar";

function whenSidebar(then, tries = 100) {
  const bar = document.querySelector('[data-testid="stSidebar"]');
  if (bar) then(bar);
  else if (tries > 0) setTimeout(() => whenSidebar(then, tries - 1), 100);
}

function press(selector) {
  const button = document.querySelector(selector);
  if (button) button.click();
  return !!button;
}

export default function ({ data, parentElement }) {
  const host = parentElement || document.body;
  const present = !!data.present;
  if (host.tlPresent === present) return;  // this mode is applied already, while the page is shown
  host.tlPresent = present;
  if (present) {
    whenSidebar((bar) => {
      if (bar.dataset.collapsed === "false" && press('[data-testid="stSidebarCollapseButton"] button')) {
        localStorage.setItem(COLLAPSED_BY_US, "1");
      }
    });
  } else if (localStorage.getItem(COLLAPSED_BY_US)) {
    localStorage.removeItem(COLLAPSED_BY_US);
    whenSidebar((bar) => {
      if (bar.dataset.collapsed === "true") press('[data-testid="stExpandSidebarButton"]');
    });
  }
}
