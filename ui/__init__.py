"""Presentation helpers with no Streamlit calls: HTML for token spans, colors, figures."""
