"""What the pages share, kept apart from the pages themselves (app_pages/ holds only pages): the link codec
(links.py), the components v2 pieces (widgets.py, with their JS and CSS in ui/web/, and nested_fragments.py),
long work with progress and Stop (long_work.py), Compare's chat and upload panels (compare_chat.py,
compare_upload.py), the labs' training text (training_text.py) and the pieces every page uses (shared.py)."""
