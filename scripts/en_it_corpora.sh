# Sourced by the en→it scripts of issue 12 (data study, size study, second model, GPU recipe):
# every human-translated en-it source with its weight (`fitsub train --corpus NAME:WEIGHT`), chosen
# in scripts/data_study_en_it.sh (README "Which data helps"): tatoeba down-weighted (the first model
# saw it 5 times), UI strings halved, the long formal sources doubled, cocoa-spoken × 4.
EN_IT_HUMAN=(tatoeba:0.3 gettext-ui:0.5 wikipedia-seed:2 modernmt-europarl modernmt-ibm
  modernmt-microsoft mtgeneval xsid wmt-news:2 cocoa-spoken:4)
