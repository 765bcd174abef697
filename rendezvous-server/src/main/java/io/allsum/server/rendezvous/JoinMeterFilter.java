package io.allsum.server.rendezvous;

import io.allsum.model.problem.ProblemCode;
import io.allsum.server.web.ProblemDetailsAdvice;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpMethod;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;

/**
 * Counts every join ({@code POST /rendezvous}) once, by outcome, from what was answered: the status and the problem
 * code the ProblemDetail advice (or, for a parked join, {@link JoinResponses}) recorded. The one place joins are
 * counted, whichever layer answered.
 */
class JoinMeterFilter extends OncePerRequestFilter {

    private final RendezvousMeters meters;

    JoinMeterFilter(RendezvousMeters meters) {
        this.meters = meters;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !HttpMethod.POST.matches(request.getMethod());
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        try {
            chain.doFilter(request, response);
        } finally {
            if (request.isAsyncStarted()) { // a parked join: counted when its answer is written
                request.getAsyncContext().addListener(new AsyncListener() {
                    @Override
                    public void onComplete(AsyncEvent event) {
                        count(request, response);
                    }

                    @Override
                    public void onTimeout(AsyncEvent event) {
                    }

                    @Override
                    public void onError(AsyncEvent event) {
                    }

                    @Override
                    public void onStartAsync(AsyncEvent event) {
                    }
                });
            } else {
                count(request, response);
            }
        }
    }

    /** Async requests are never dispatched again: this filter's own check of them would only skip the count. */
    @Override
    protected boolean shouldNotFilterAsyncDispatch() {
        return true;
    }

    private void count(HttpServletRequest request, HttpServletResponse response) {
        ProblemCode code = request.getAttribute(ProblemDetailsAdvice.PROBLEM_CODE_ATTRIBUTE)
                instanceof ProblemCode recorded ? recorded : null;
        meters.joinAnswered(JoinOutcome.of(response.getStatus(), code));
    }
}
