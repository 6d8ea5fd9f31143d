-- 0050: indexes for the gaming inspectors' search (art. 20.4: the file is open to the
-- inspectors of the Comunidad, who wait for the answer). Numbers 0050-0059 belong to
-- the inspection reads (db/inspection.py).
--
-- visitors_by_name: the visitors in the search's order (folded name, then file number,
-- the rowid every index ends with), so a broad search reads the first matches in order
-- and stops, instead of sorting every match.
-- visits_by_document: a document number shown at a visit (the support number of a DNI,
-- a passport...) is found without reading every visit.
CREATE INDEX visitors_by_name ON visitors (search_name);
CREATE INDEX visits_by_document ON visits (document_number);
