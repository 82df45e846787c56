"""Typography follows the source (issue 43, part 4): ellipses kept, single spaces."""

from __future__ import annotations

from fitsub.pipeline.typography import follow_source


def test_an_ellipsis_of_the_source_stays_an_ellipsis_at_either_end() -> None:
    hive = "Twelve years ago I bought my first hive..."
    assert follow_source(hive, "Dodici anni fa ho comprato un'arnia..") == (
        "Dodici anni fa ho comprato un'arnia..."
    )
    assert follow_source(hive, "Ho comprato un'arnia") == "Ho comprato un'arnia..."
    assert follow_source("Wait…", "Aspetta.") == "Aspetta…"
    idea = "...and I had no idea."
    assert follow_source(idea, "..e non avevo idea.") == "...e non avevo idea."
    assert follow_source(idea, "e non avevo idea.") == "...e non avevo idea."


def test_other_punctuation_and_words_are_left_alone_and_spaces_squeezed() -> None:
    assert follow_source("Really?", "Davvero..") == "Davvero.."  # no ellipsis in the source
    assert follow_source("Really...", "Davvero?") == "Davvero?"
    assert follow_source("It is late.", "È  tardi.") == "È tardi."
    assert follow_source('He said "go..."', 'Ha detto "vai.."') == 'Ha detto "vai..."'
