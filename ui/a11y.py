"""Page-wide CSS for contrast that Streamlit's own theme misses (axe-core's color-contrast rule,
WCAG 2 AA: 4.5:1 for text; tests/e2e/test_a11y_browser.py audits every page, light and dark).

Streamlit's theme has no option for these colours, so they are set here, for the light and the dark
theme (the app follows the browser's setting, as the spans' CSS does):
- captions (st.caption) are drawn at opacity 0.6: 3.8:1 on white and on the light sidebar, 4.2:1 on
  the dark sidebar. At 0.8 they stay lighter than the text and pass (6.4:1 and 9.2:1 at the least);
- the selected option of a segmented control or pills is drawn in the primary red on a tint of it:
  4.47:1 on the light theme (a darker red here, 6.2:1), 3.6:1 on the dark one, as is a slider's value
  (a lighter red there, 7.1:1).
"""

PAGE_CSS = """<style>
.stApp [data-testid="stCaptionContainer"]{opacity:.8}
.stApp [data-testid="stButtonGroup"] button[data-selected="true"] [data-testid="stMarkdownContainer"]{color:#a3293a}
@media (prefers-color-scheme: dark){
.stApp [data-testid="stButtonGroup"] button[data-selected="true"] [data-testid="stMarkdownContainer"],
.stApp [data-testid="stSliderThumbValue"] [data-testid="stMarkdownContainer"]{color:#f28b94}
}
</style>"""
