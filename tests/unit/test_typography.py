"""Typography follows the source (issue 43, part 4): ellipses kept, single spaces."""

from __future__ import annotations

from fitsub.pipeline.typography import follow_source, target_quotes


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


def test_quotation_marks_become_the_target_languages_own_when_the_source_quotes() -> None:
    said = 'He said "go home".'
    assert target_quotes(said, 'Ha detto "vai a casa".', "it") == "Ha detto «vai a casa»."
    assert target_quotes(said, "Er sagte “geh nach Hause”.", "de") == "Er sagte „geh nach Hause“."
    assert target_quotes(said, "Dijo « vete a casa ».", "es") == "Dijo «vete a casa»."
    # French: guillemets with a no-break space inside, whatever spacing the model wrote
    assert target_quotes(said, 'Il a dit "rentre".', "fr") == "Il a dit «\u00a0rentre\u00a0»."
    assert target_quotes(said, "Il a dit «rentre».", "fr") == "Il a dit «\u00a0rentre\u00a0»."
    # two quotations, the first at the start of the line
    two = '"Yes," he said, "now."'
    assert target_quotes(two, '"Sì", disse, "adesso".', "it") == "«Sì», disse, «adesso»."


def test_quotation_marks_are_left_alone_where_the_rule_does_not_apply() -> None:
    said = 'He said "go home".'
    assert target_quotes("He said go home.", 'Ha detto "vai".', "it") == 'Ha detto "vai".'
    assert target_quotes(said, 'Ha detto "vai.', "it") == 'Ha detto "vai.'  # unpaired
    assert target_quotes(said, 'Ha detto vai".', "it") == 'Ha detto vai".'  # closes first
    assert target_quotes(said, 'Ha detto "vai".', "nl") == 'Ha detto "vai".'  # no convention
    assert target_quotes(said, "Ha detto 'vai'.", "it") == "Ha detto 'vai'."  # single marks
    # marks inside a tag or an ASS override block are markup, not quotation marks
    tagged = '<font color="#ff0000">Ha detto "vai".</font>'
    assert target_quotes(said, tagged, "it") == '<font color="#ff0000">Ha detto «vai».</font>'
    assert target_quotes(said, '{\\fn"Arial"}"Vai".', "it") == '{\\fn"Arial"}«Vai».'
    assert target_quotes('<i a="b">Go.</i>', '"Vai".', "it") == '"Vai".'  # source: markup only
